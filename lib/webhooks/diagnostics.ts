import { channel } from 'node:diagnostics_channel';

/**
 * Webhook deliveries on `node:diagnostics_channel` (metrics and traces attach here):
 *
 *   portico:webhooks:enqueued        jobs are in the durable outbox (`count` of them)
 *   portico:webhooks:attempt:start   one POST to a receiver is about to go out
 *   portico:webhooks:attempt:end     the same event object, with the verdict
 */
export const webhookChannels = {
  enqueued: channel('portico:webhooks:enqueued'),
  attemptStart: channel('portico:webhooks:attempt:start'),
  attemptEnd: channel('portico:webhooks:attempt:end'),
};

export interface WebhookEnqueuedEvent {
  environment: string;
  count: number;
}

export interface WebhookAttemptEvent {
  environment: string;
  deliveryId: string;
  type: string;
  target: string;
  attempt: number;
  startedAt: number;
  /** Set at the end: `delivered`, `retry` (another attempt is scheduled), `failed` (given up) or `abandoned` (shutdown). */
  outcome?: 'delivered' | 'retry' | 'failed' | 'abandoned';
  /** Set at the end: the receiver's status, when it answered. */
  status?: number | null;
  durationMs?: number;
}

export function attemptStarted(subject: Omit<WebhookAttemptEvent, 'startedAt'>): WebhookAttemptEvent | undefined {
  if (!webhookChannels.attemptStart.hasSubscribers && !webhookChannels.attemptEnd.hasSubscribers) return undefined;
  const event: WebhookAttemptEvent = { ...subject, startedAt: performance.now() };
  webhookChannels.attemptStart.publish(event);
  return event;
}

export function attemptEnded(
  event: WebhookAttemptEvent | undefined,
  outcome: NonNullable<WebhookAttemptEvent['outcome']>,
  status: number | null,
): void {
  if (!event) return;
  event.outcome = outcome;
  event.status = status;
  event.durationMs = performance.now() - event.startedAt;
  webhookChannels.attemptEnd.publish(event);
}
