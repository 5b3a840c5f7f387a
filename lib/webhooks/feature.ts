import type { ConnectionService } from '../connections/index.js';
import type { Cipher } from '../crypto/index.js';
import type { Environment } from '../environments/index.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from '../http/logger.js';
import type { IntegrationService } from '../integrations/index.js';
import type { Catalog } from '../providers/index.js';
import type { Storage } from '../storage/index.js';
import { createWebhookPoster } from './attempt.js';
import { authEventFor, isConnectionEvent } from './auth-events.js';
import { createConnectionWebhookUrls } from './connection-urls.js';
import { createDeliveryLog } from './deliveries.js';
import { createEventLog } from './event-log.js';
import { createByteBudget } from './inbound/byte-budget.js';
import { createRedelivery } from './redeliver.js';
import { createInstallationIndex } from './inbound/installation-index.js';
import { builtInWebhookRoutings } from './inbound/registry.js';
import { createInboundWebhookRoutes } from './inbound/routes.js';
import { resolveWebhookOptions, type WebhookOptions } from './options.js';
import type { DeliveryJob } from './delivery-job.js';
import { createWebhookRoutes } from './routes.js';
import { createWebhookSender } from './sender.js';
import { createDeliverySequence } from './sequence.js';
import { createWebhookSettingsStore } from './settings.js';
import { createDeliveryHandler } from './worker.js';

export interface WebhookDeps {
  storage: Storage;
  cipher: Cipher;
  catalog: Catalog;
  integrations: IntegrationService;
  connections: ConnectionService;
  events: EventBus;
  logger: Logger;
  environments: readonly Environment[];
  cacheTtlMs: number;
  options?: WebhookOptions | undefined;
}

/** Pause before a job whose handler threw (e.g. the store was unreachable) is tried again. */
const errorDelayMs = 5_000;

/**
 * Attempts before a job goes to the dead letters: the delivery policy decides when a delivery
 * fails (its record says so); this ceiling only stops a handler that keeps throwing (the store
 * unreachable for hours), and its job stays visible among the queue's dead letters.
 */
const maxAttempts = 50;

/**
 * The webhooks feature: outgoing signed deliveries (auth events from the bus, and whatever other
 * features `send`), their durable queue and history, and incoming provider webhooks.
 */
export async function createWebhooks(deps: WebhookDeps) {
  const { storage, logger } = deps;
  const resolved = resolveWebhookOptions(deps.options);
  const names = new Set(deps.environments.map((env) => env.name));
  const isEnvironment = (env: string) => names.has(env);

  const settings = createWebhookSettingsStore({
    storage,
    cipher: deps.cipher,
    environments: deps.environments,
    cacheTtlMs: deps.cacheTtlMs,
  });
  const sequence = createDeliverySequence(storage);
  const log = createDeliveryLog(storage, sequence, { retention: resolved.retention, scanLimit: 5_000 });
  const events = createEventLog(storage, createDeliverySequence(storage, 'webhook-event'), {
    retention: resolved.retention,
  });
  const connectionUrls = createConnectionWebhookUrls(storage);
  const installations = createInstallationIndex(storage, deps.connections);
  const queue =
    deps.options?.queue ??
    storage.queue<DeliveryJob>('webhooks', {
      errorDelayMs,
      maxAttempts,
      onError: (message, details) => logger.warn(`webhooks: ${message}`, details),
      ...(deps.options?.leaseMs !== undefined ? { visibilityTimeoutMs: deps.options.leaseMs } : {}),
    });
  const sender = createWebhookSender({
    settings,
    connectionUrls,
    storage,
    log,
    events,
    queue,
    integrations: deps.integrations,
    isEnvironment,
  });

  const unsubscribe = deps.events.subscribe(async (event) => {
    if (!isConnectionEvent(event)) return;
    const env = event.environment;
    const authMode = deps.catalog.get(event.provider)?.auth_mode;
    // Only APP connections hold an installation: others need no read (and no decryption) here.
    if ((event.type === 'connection.created' || event.type === 'connection.overridden') && authMode === 'APP') {
      await installations.track(env, event.provider_config_key, event.connection_id);
    }
    await sender.send(env, authEventFor(event, authMode));
    if (event.type === 'connection.deleted')
      await connectionUrls.delete(env, event.provider_config_key, event.connection_id);
  });

  const poster = createWebhookPoster({ timeoutMs: resolved.policy.timeoutMs });
  try {
    await queue.start(createDeliveryHandler({ settings, log, policy: resolved.policy, logger, poster }), {
      concurrency: resolved.concurrency,
    });
  } catch (error) {
    // A queue that could not start (its store away) holds connections all the same.
    unsubscribe();
    await queue.close();
    poster.close();
    throw error;
  }

  return {
    /** For other features: accept an event (sync, records, action, …) for delivery. */
    api: {
      send: sender.send,
      settings,
      deliveries: log,
      policy: resolved.policy,
      queueKind: queue.kind,
      /** Deliveries waiting, delayed, being attempted and dead-lettered (for metrics). */
      queueCounts: () => queue.counts(),
    },
    /** Behind the secret key. */
    routes: createWebhookRoutes({
      settings,
      log,
      events,
      redeliver: createRedelivery({ log, events, queue }),
      connectionUrls,
      connections: deps.connections,
    }),
    /** Public: providers call these. */
    inboundRoutes: createInboundWebhookRoutes({
      isEnvironment,
      integrations: deps.integrations,
      connections: deps.connections,
      catalog: deps.catalog,
      routings: builtInWebhookRoutings(),
      installations,
      sender,
      logger,
      bodyLimit: resolved.inboundBodyLimit,
      budget: createByteBudget(resolved.inboundInFlightBytes),
      readTimeoutMs: resolved.inboundReadTimeoutMs,
    }),
    async close() {
      unsubscribe();
      await queue.close();
      poster.close();
    },
  };
}

export type Webhooks = Awaited<ReturnType<typeof createWebhooks>>;
export type WebhooksApi = Webhooks['api'];
