import { defaultDeliveryPolicy, type DeliveryPolicy } from './policy.js';
import type { WorkQueue } from '../queue/index.js';
import type { DeliveryJob } from './delivery-job.js';

/** `GatewayOptions.webhooks`: every field optional; the defaults follow the spec. */
export interface WebhookOptions extends Partial<DeliveryPolicy> {
  /** Attempts in flight at once per gateway process. Default 20. */
  concurrency?: number;
  /** Delivery records kept per environment (older ones are deleted). Default 10,000. */
  retention?: number;
  /** Largest provider webhook body accepted. Default 25 MiB (the code-hosting provider's cap). */
  inboundBodyLimit?: number;
  /** Bytes of provider webhook bodies held in memory at once by one process (503 beyond). Default 48 MiB. */
  inboundInFlightBytes?: number;
  /** How long a provider has to send a webhook body. Default 30 s. */
  inboundReadTimeoutMs?: number;
  /**
   * A delivery being attempted is hidden from other instances this long without a heartbeat:
   * after a crash mid-attempt, it is attempted again this long later. Default 30 s.
   */
  leaseMs?: number;
  /** Where accepted events wait. Default: the storage's work queue (`storage.queue('webhooks')`). */
  queue?: WorkQueue<DeliveryJob>;
}

export interface ResolvedWebhookOptions {
  policy: DeliveryPolicy;
  concurrency: number;
  retention: number;
  inboundBodyLimit: number;
  inboundInFlightBytes: number;
  inboundReadTimeoutMs: number;
}

export function resolveWebhookOptions(options: WebhookOptions = {}): ResolvedWebhookOptions {
  const pick = <K extends keyof DeliveryPolicy>(key: K): DeliveryPolicy[K] =>
    options[key] ?? defaultDeliveryPolicy[key];
  const policy: DeliveryPolicy = {
    timeoutMs: pick('timeoutMs'),
    retries: pick('retries'),
    backoffMs: pick('backoffMs'),
    backoffFactor: pick('backoffFactor'),
    jitter: pick('jitter'),
    maxRetryAfterMs: pick('maxRetryAfterMs'),
  };
  const problems: string[] = [];
  if (!(policy.timeoutMs > 0)) problems.push('webhooks.timeoutMs must be positive');
  if (!Number.isInteger(policy.retries) || policy.retries < 0)
    problems.push('webhooks.retries must be a whole number ≥ 0');
  if (!(policy.backoffMs >= 0) || !(policy.backoffFactor >= 1) || !(policy.jitter >= 0))
    problems.push('webhooks.backoffMs ≥ 0, backoffFactor ≥ 1 and jitter ≥ 0');
  const resolved = {
    policy,
    concurrency: options.concurrency ?? 20,
    retention: options.retention ?? 10_000,
    inboundBodyLimit: options.inboundBodyLimit ?? 25 * 1024 * 1024,
    inboundInFlightBytes: options.inboundInFlightBytes ?? 48 * 1024 * 1024,
    inboundReadTimeoutMs: options.inboundReadTimeoutMs ?? 30_000,
  };
  if (!(resolved.inboundInFlightBytes >= resolved.inboundBodyLimit))
    problems.push('webhooks.inboundInFlightBytes must be at least webhooks.inboundBodyLimit');
  if (!(resolved.inboundReadTimeoutMs > 0)) problems.push('webhooks.inboundReadTimeoutMs must be positive');
  if (!Number.isInteger(resolved.concurrency) || resolved.concurrency < 1)
    problems.push('webhooks.concurrency must be a whole number ≥ 1');
  if (!Number.isInteger(resolved.retention) || resolved.retention < 1)
    problems.push('webhooks.retention must be a whole number ≥ 1');
  if (problems.length > 0) throw new Error(`invalid gateway options:\n  ${problems.join('\n  ')}`);
  return resolved;
}
