import type * as PromClient from 'prom-client';
import { onFirstUse } from '../on-first-use.js';
import type { RefreshEvent } from '../credentials/index.js';
import type { ProxyCallEvent, ProxyErrorEvent, ProxyResponseEvent, ProxyRetryEvent } from '../proxy/index.js';
import type { RecordsWrittenEvent } from '../records/index.js';
import type { ScriptRunEvent } from '../scripts/index.js';
import type { StorageErrorEvent } from '../storage/index.js';
import type { WebhookAttemptEvent, WebhookEnqueuedEvent } from '../webhooks/index.js';
import { createCachedReading } from './cached-reading.js';
import { createLabelCap } from './labels.js';
import { createKeyCache, createSeriesCounter, createSeriesHistogram } from './series.js';
import { createSubscriptions } from './subscriptions.js';

export interface MetricsOptions {
  /**
   * Serve `GET /metrics` on the gateway's own stack, behind `Authorization: Bearer <token>`
   * (a token of its own, not a secret key). Without it, serve `gateway.metrics.registry` yourself.
   */
  token?: string;
  /** Distinct integration keys (and script names) kept as label values; later ones count as `other`. Default 100. */
  maxIntegrations?: number;
  /** prom-client's process_* and nodejs_* metrics in the same registry. Default true. */
  processMetrics?: boolean;
  /** How old a webhook backlog reading (a store round trip) may be when scraped. Default 5 000 ms. */
  backlogMaxAgeMs?: number;
}

const fast = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const slow = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800];
const seconds = (ms: number) => ms / 1000;

/** prom-client (about 2 MB of heap), loaded when metrics are switched on. */
const loadPromClient = onFirstUse<typeof PromClient>('prom-client');

/**
 * A Prometheus registry of the gateway's own (no prom-client global), fed by the features'
 * `node:diagnostics_channel` events. Events of environments this gateway does not serve are
 * ignored, so two gateways in one process count their own traffic. No connection id is ever
 * a label; integration keys and script names are capped (`maxIntegrations`).
 */
export function createMetrics(environments: readonly string[], options: MetricsOptions = {}) {
  const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = loadPromClient();
  const registry = new Registry();
  const ours = new Set(environments);
  const integration = createLabelCap(options.maxIntegrations ?? 100);
  const script = createLabelCap(options.maxIntegrations ?? 100);
  const registers = [registry];
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });

  const proxyCalls = createSeriesCounter(
    registry,
    'portico_proxy_calls_total',
    'Calls through /proxy, by the status the caller got.',
    ['environment', 'integration', 'provider', 'status'],
  );
  const proxyDuration = createSeriesHistogram(
    registry,
    'portico_proxy_call_duration_seconds',
    'Calls through /proxy, start to the end of the response.',
    ['integration', 'provider'],
    fast,
  );
  const upstreamDuration = createSeriesHistogram(
    registry,
    'portico_proxy_upstream_duration_seconds',
    'Provider time per call or page: sending to the final response headers (retries and a token refresh included).',
    ['provider'],
    fast,
  );
  const upstreamErrors = new Counter({
    name: 'portico_proxy_upstream_errors_total',
    help: 'Provider requests that got no answer (unreachable, reset, timeout).',
    labelNames: ['provider', 'reason'] as const,
    registers,
  });
  const retries = new Counter({
    name: 'portico_proxy_retries_total',
    help: 'Provider requests retried, by reason (a status or a network failure).',
    labelNames: ['provider', 'reason'] as const,
    registers,
  });
  const refreshes = new Counter({
    name: 'portico_token_refreshes_total',
    help: 'Token renewals (OAuth2 refresh, client credentials), by outcome.',
    labelNames: ['provider', 'auth_mode', 'outcome'] as const,
    registers,
  });
  const refreshDuration = new Histogram({
    name: 'portico_token_refresh_duration_seconds',
    help: 'Token renewals and app token mints, request to answer.',
    labelNames: ['auth_mode'] as const,
    buckets: fast,
    registers,
  });
  const mints = new Counter({
    name: 'portico_app_token_mints_total',
    help: 'Code-hosting app installation tokens minted, by outcome.',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const records = new Counter({
    name: 'portico_records_written_total',
    help: 'Synced records changed in the store.',
    labelNames: ['integration', 'operation'] as const,
    registers,
  });
  const runs = new Counter({
    name: 'portico_script_runs_total',
    help: 'Sync and action runs, by outcome.',
    labelNames: ['environment', 'integration', 'script', 'kind', 'outcome'] as const,
    registers,
  });
  const runDuration = new Histogram({
    name: 'portico_script_run_duration_seconds',
    help: 'Sync and action runs, start to finish.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: slow,
    registers,
  });
  const enqueued = new Counter({
    name: 'portico_webhook_enqueued_total',
    help: 'Webhook deliveries put in the durable outbox.',
    labelNames: ['environment'] as const,
    registers,
  });
  const attempts = new Counter({
    name: 'portico_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retry, failed, abandoned).',
    labelNames: ['environment', 'outcome'] as const,
    registers,
  });
  const attemptDuration = new Histogram({
    name: 'portico_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempts, request to answer.',
    buckets: fast,
    registers,
  });
  // Read from the work queue, shared by every instance on the store, so each instance reports the
  // same total; at most one read per `backlogMaxAgeMs` however often and by how many it is scraped.
  let readBacklog: (() => Promise<number | undefined>) | undefined;
  new Gauge({
    name: 'portico_webhook_backlog',
    help: 'Webhook deliveries in the durable outbox not yet delivered or given up (waiting, delayed or being attempted), across all instances sharing the store.',
    registers,
    async collect() {
      const value = await readBacklog?.();
      if (value !== undefined) this.set(value);
    },
  });
  const storeErrors = new Counter({
    name: 'portico_store_errors_total',
    help: 'Store operations that failed.',
    labelNames: ['kind', 'namespace'] as const,
    registers,
  });

  // A proxied call's series keys, joined once per distinct set of label values (keyed by the
  // environment first, so the keys are the label values in the metric's order).
  const integrationProvider = createKeyCache();
  const environmentPair = createKeyCache();
  const withStatus = createKeyCache();

  const subscriptions = createSubscriptions();
  subscriptions.on<ProxyCallEvent>('portico:proxy:call:end', (e) => {
    if (!ours.has(e.environment)) return;
    const pair = integrationProvider(integration(e.providerConfigKey), e.provider);
    proxyCalls.inc(withStatus(environmentPair(e.environment, pair), e.status ?? 0));
    proxyDuration.observe(pair, seconds(e.durationMs ?? 0));
  });
  subscriptions.on<ProxyResponseEvent>('portico:proxy:response', (e) => {
    if (ours.has(e.environment)) upstreamDuration.observe(e.provider, seconds(e.durationMs));
  });
  subscriptions.on<ProxyErrorEvent>('portico:proxy:error', (e) => {
    if (ours.has(e.environment)) upstreamErrors.labels(e.provider, e.reason).inc();
  });
  subscriptions.on<ProxyRetryEvent>('portico:proxy:retry', (e) => {
    if (ours.has(e.environment)) retries.labels(e.provider, e.reason).inc();
  });
  subscriptions.on<RefreshEvent>('portico:credentials:refresh:end', (e) => {
    if (!ours.has(e.environment)) return;
    if (e.authMode === 'APP') mints.labels(e.provider, e.outcome ?? 'error').inc();
    else refreshes.labels(e.provider, e.authMode, e.outcome ?? 'error').inc();
    refreshDuration.labels(e.authMode).observe(seconds(e.durationMs ?? 0));
  });
  subscriptions.on<RecordsWrittenEvent>('portico:records:written', (e) => {
    if (!ours.has(e.environment)) return;
    const key = integration(e.providerConfigKey);
    if (e.added > 0) records.labels(key, 'added').inc(e.added);
    if (e.updated > 0) records.labels(key, 'updated').inc(e.updated);
    if (e.deleted > 0) records.labels(key, 'deleted').inc(e.deleted);
  });
  subscriptions.on<ScriptRunEvent>('portico:scripts:run', (e) => {
    if (!ours.has(e.environment)) return;
    runs.labels(e.environment, integration(e.providerConfigKey), script(e.script), e.kind, e.outcome).inc();
    runDuration.labels(e.kind, e.outcome).observe(seconds(e.durationMs));
  });
  subscriptions.on<WebhookEnqueuedEvent>('portico:webhooks:enqueued', (e) => {
    if (!ours.has(e.environment)) return;
    enqueued.labels(e.environment).inc(e.count);
  });
  subscriptions.on<WebhookAttemptEvent>('portico:webhooks:attempt:end', (e) => {
    if (!ours.has(e.environment)) return;
    attempts.labels(e.environment, e.outcome ?? 'abandoned').inc();
    attemptDuration.observe(seconds(e.durationMs ?? 0));
  });
  subscriptions.on<StorageErrorEvent>('portico:storage:error', (e) => storeErrors.labels(e.kind, e.namespace).inc());

  return {
    registry,
    /** The exposition text and its content type. */
    async scrape(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    /** Where the webhook backlog is read: the delivery queue's counts (the gateway sets it). */
    readWebhookBacklogFrom(counts: () => Promise<{ waiting: number; delayed: number; active: number }>): void {
      readBacklog = createCachedReading(
        async () => {
          const c = await counts();
          return c.waiting + c.delayed + c.active;
        },
        { maxAgeMs: options.backlogMaxAgeMs ?? 5_000, timeoutMs: 1_000 },
      );
    },
    /** Stops listening (the gateway's close). */
    close(): void {
      subscriptions.close();
      registry.clear();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
