import { randomUUID } from 'node:crypto';
import type { IntegrationService } from '../integrations/index.js';
import type { ConnectionWebhookUrls } from './connection-urls.js';
import type { DeliveryLog, DeliveryRecord } from './deliveries.js';
import type { EventLog } from './event-log.js';
import { webhookChannels } from './diagnostics.js';
import type { WebhookEventInput, WebhookPayload } from './payloads.js';
import type { WorkQueue } from '../queue/index.js';
import { writeInOrder, type Storage } from '../storage/index.js';
import type { DeliveryJob } from './delivery-job.js';
import type { WebhookSettings, WebhookSettingsStore } from './settings.js';

export interface SendResult {
  delivery_id: string;
  /** How many URLs the event was queued for (0: no webhook URL is set; the event is recorded as skipped). */
  queued: number;
}

export interface WebhookSender {
  /**
   * Accepts an event for delivery to the environment's webhook URL(s), or to the connection's own
   * URL when it has one. Resolves once the event is in the durable outbox.
   */
  send(env: string, event: WebhookEventInput): Promise<SendResult>;
}

export interface SenderDeps {
  settings: WebhookSettingsStore;
  connectionUrls: ConnectionWebhookUrls;
  /** Where the feed and the records are written (`writeInOrder`). */
  storage: Pick<Storage, 'commitsTogether' | 'writeListed' | 'keyv' | 'index'>;
  log: DeliveryLog;
  events: EventLog;
  queue: WorkQueue<DeliveryJob>;
  integrations: IntegrationService;
  isEnvironment(env: string): boolean;
}

type Target = { target: DeliveryRecord['target']; url: string | null };

/** The environment's URLs, or one record saying none was set. */
const environmentTargets = (settings: WebhookSettings): Target[] => {
  const urls: Target[] = [];
  if (settings.webhook_url) urls.push({ target: 'primary', url: settings.webhook_url });
  if (settings.webhook_secondary_url) urls.push({ target: 'secondary', url: settings.webhook_secondary_url });
  return urls.length > 0 ? urls : [{ target: 'none', url: null }];
};

export function createWebhookSender(deps: SenderDeps): WebhookSender {
  return {
    async send(env, event) {
      if (!deps.isEnvironment(env)) throw new Error(`no environment named "${env}"`);
      const provider =
        event.provider ?? (await deps.integrations.get(env, event.provider_config_key))?.provider ?? null;
      const { provider: _ignored, ...rest } = event;
      const payload = {
        ...rest,
        provider,
        delivery_id: randomUUID(),
        created_at: new Date().toISOString(),
        environment: env,
      } as WebhookPayload;
      const body = JSON.stringify(payload);
      // The settings are cached; the connection's own URL, the event's number and the deliveries'
      // numbers are asked for together (on a shared store: one round trip, not two). A connection's
      // own URL replaces the environment's, so the count is known before it is: one record, unless
      // the environment has two URLs (then the own URL is awaited first, and no number goes unused).
      const fallback = environmentTargets(await deps.settings.get(env));
      const ownUrl =
        event.connection_id === null
          ? undefined
          : deps.connectionUrls.get(env, event.provider_config_key, event.connection_id);
      const count = fallback.length === 1 ? 1 : (await ownUrl) ? 1 : fallback.length;
      const [own, feed, numbers] = await Promise.all([ownUrl, deps.events.reserve(env), deps.log.reserve(env, count)]);
      const targets: Target[] = own ? [{ target: 'connection', url: own }] : fallback;
      const records: DeliveryRecord[] = targets.map(({ target, url }, i) => ({
        seq: numbers.first + i,
        event_seq: feed.seq,
        delivery_id: payload.delivery_id,
        environment: env,
        type: event.type,
        connection_id: event.connection_id,
        provider_config_key: event.provider_config_key,
        target,
        url,
        state: url ? 'pending' : 'skipped',
        reason: url ? null : 'no_webhook_url',
        attempts: [],
        created_at: payload.created_at,
        updated_at: payload.created_at,
      }));
      const stored = {
        delivery_id: payload.delivery_id,
        type: event.type,
        connection_id: event.connection_id,
        provider_config_key: event.provider_config_key,
        body,
        created_at: payload.created_at,
      };
      // The replay feed first: whatever the deliveries' fate, the customer can fetch the event.
      // Then the records: the worker may pick a job up at once and update its record. Both after
      // their numbers, in one command where the store takes several.
      await writeInOrder(
        deps.storage,
        [feed.writes(stored), numbers.writes(records)],
        Promise.all([feed.written, numbers.written]),
      );
      const jobs: DeliveryJob[] = records
        .filter((r): r is DeliveryRecord & { url: string; target: DeliveryJob['target'] } => r.url !== null)
        .map((r) => ({
          id: `${env}.${r.seq}`,
          environment: env,
          seq: r.seq,
          delivery_id: r.delivery_id,
          type: r.type,
          connection_id: r.connection_id,
          provider_config_key: r.provider_config_key,
          target: r.target,
          url: r.url,
          body,
          created_at: r.created_at,
        }));
      if (jobs.length > 0) {
        await deps.queue.enqueue(jobs.map((job) => ({ id: job.id, data: job })));
        if (webhookChannels.enqueued.hasSubscribers)
          webhookChannels.enqueued.publish({ environment: env, count: jobs.length });
      }
      return { delivery_id: payload.delivery_id, queued: jobs.length };
    },
  };
}
