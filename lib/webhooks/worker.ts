import { setTimeout as pause } from 'node:timers/promises';
import type { Logger } from '../http/logger.js';
import type { WebhookPoster } from './attempt.js';
import { attemptEnded, attemptStarted } from './diagnostics.js';
import type { AttemptRecord, DeliveryLog } from './deliveries.js';
import { decide, type AttemptResult, type DeliveryPolicy } from './policy.js';
import type { JobHandler } from '../queue/index.js';
import type { DeliveryJob } from './delivery-job.js';
import type { WebhookSettingsStore } from './settings.js';
import { signatureHeaders } from './signing.js';

const describe = (result: AttemptResult): string | null => {
  switch (result.kind) {
    case 'timeout':
      return 'timeout';
    case 'network':
      return result.message;
    case 'response':
      return result.status >= 200 && result.status < 300 ? null : `HTTP ${result.status}`;
  }
};

/** How long the record of an attempt that was made is retried before the job goes back to the queue (which sends again). */
const recordWithinMs = 30_000;

/**
 * Writes the record of an attempt that was made, retrying while the store is away (a store that
 * has just come back may refuse the first writes): throwing here would send the webhook again.
 * Past `recordWithinMs`, or when the queue stops the job, the error goes to the queue as before.
 */
async function recordAttempt(write: () => Promise<void>, signal: AbortSignal): Promise<void> {
  const until = Date.now() + recordWithinMs;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await write();
    } catch (error) {
      if (signal.aborted || Date.now() + wait > until) throw error;
      await pause(wait, undefined, { signal }).catch(() => undefined);
    }
  }
}

/**
 * The queue's handler: signs the body with the environment's current key (so a rotation applies to
 * retries too), makes one attempt, records it, and says whether to retry.
 */
export function createDeliveryHandler(deps: {
  settings: WebhookSettingsStore;
  log: DeliveryLog;
  policy: DeliveryPolicy;
  logger: Logger;
  poster: WebhookPoster;
}): JobHandler<DeliveryJob> {
  const { policy, log, logger } = deps;
  return async ({ data: job, attempt }, signal) => {
    const { signing_key } = await deps.settings.get(job.environment);
    const body = Buffer.from(job.body, 'utf8');
    const at = new Date().toISOString();
    const event = attemptStarted({
      environment: job.environment,
      deliveryId: job.delivery_id,
      type: job.type,
      target: job.target,
      attempt,
    });
    let attempted;
    try {
      attempted = await deps.poster.post(job.url, body, signatureHeaders(body, signing_key), signal);
    } catch (error) {
      attemptEnded(event, 'abandoned', null);
      if (signal.aborted) return { kind: 'abandoned' };
      throw error;
    }
    const verdict = decide(policy, attempt, attempted.result);
    const number = (job.attempt_offset ?? 0) + attempt;
    attemptEnded(event, verdict.kind, attempted.result.kind === 'response' ? attempted.result.status : null);
    const record: AttemptRecord = {
      attempt: number,
      at,
      status: attempted.result.kind === 'response' ? attempted.result.status : null,
      duration_ms: attempted.durationMs,
      error: describe(attempted.result),
      retry_in_ms: verdict.kind === 'retry' ? verdict.delayMs : null,
    };
    const recorded = () =>
      log.update(job.environment, job.seq, (r) => ({
        ...r,
        state: verdict.kind === 'delivered' ? 'delivered' : verdict.kind === 'failed' ? 'failed' : 'pending',
        reason: verdict.kind === 'failed' ? verdict.reason : null,
        attempts: [...r.attempts.filter((a) => a.attempt !== number), record],
        updated_at: new Date().toISOString(),
      }));
    await recordAttempt(recorded, signal);
    if (verdict.kind !== 'delivered') {
      logger.warn('webhook attempt failed', {
        delivery_id: job.delivery_id,
        type: job.type,
        attempt: number,
        error: record.error,
        retry_in_ms: record.retry_in_ms,
      });
    }
    return verdict.kind === 'retry' ? { kind: 'retry', delayMs: verdict.delayMs } : { kind: 'done' };
  };
}
