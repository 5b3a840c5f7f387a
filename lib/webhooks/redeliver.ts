import { fail } from '../errors.js';
import type { WorkQueue } from '../queue/index.js';
import type { DeliveryJob } from './delivery-job.js';
import type { DeliveryLog, DeliveryRecord } from './deliveries.js';
import type { EventLog } from './event-log.js';

/**
 * `POST /webhooks/deliveries/:id/retry`: sends a delivery's event again, the same body, to the
 * URL(s) it went to, as a new series of attempts (with the full retry policy) appended to its
 * history. A delivery still being attempted is refused, so a double click sends once.
 */
export function createRedelivery(deps: { log: DeliveryLog; events: EventLog; queue: WorkQueue<DeliveryJob> }) {
  return async (env: string, deliveryId: string): Promise<DeliveryRecord[]> => {
    const { records } = await deps.log.list(env, { delivery_id: deliveryId }, 10);
    if (records.length === 0) fail('unknown_delivery', `No delivery "${deliveryId}" among the kept history.`);
    const sendable = records.filter(
      (r): r is DeliveryRecord & { url: string; target: DeliveryJob['target'] } => r.url !== null,
    );
    if (sendable.length === 0)
      fail(
        'delivery_not_sendable',
        'This event had no webhook URL to go to (skipped); set one, then use the replay feed.',
      );
    if (sendable.some((r) => r.state === 'pending'))
      fail('delivery_pending', 'This delivery is still being attempted.');
    const jobs: DeliveryJob[] = [];
    for (const r of sendable) {
      const event = r.event_seq === undefined ? undefined : await deps.events.get(env, r.event_seq);
      if (!event) fail('delivery_expired', 'The body of this event is no longer kept (older than the retention).');
      jobs.push({
        id: `${env}.${r.seq}.r${r.attempts.length}`,
        environment: env,
        seq: r.seq,
        delivery_id: r.delivery_id,
        type: r.type,
        connection_id: r.connection_id,
        provider_config_key: r.provider_config_key,
        target: r.target,
        url: r.url,
        body: event.body,
        created_at: r.created_at,
        attempt_offset: r.attempts.length,
      });
    }
    const now = new Date().toISOString();
    for (const r of sendable)
      await deps.log.update(env, r.seq, (current) => ({ ...current, state: 'pending', reason: null, updated_at: now }));
    await deps.queue.enqueue(jobs.map((job) => ({ id: job.id, data: job })));
    return Promise.all(sendable.map(async (r) => (await deps.log.get(env, r.seq)) ?? r));
  };
}
