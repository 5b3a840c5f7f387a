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
import { createByteBudget } from './inbound/byte-budget.js';
import { createInstallationIndex } from './inbound/installation-index.js';
import { builtInWebhookRoutings } from './inbound/registry.js';
import { createInboundWebhookRoutes } from './inbound/routes.js';
import { resolveWebhookOptions, type WebhookOptions } from './options.js';
import { createBullmqQueue } from './queue/bullmq-queue.js';
import { createKeyvQueue } from './queue/keyv-queue.js';
import type { DeliveryQueue } from './queue/queue.js';
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

function chooseQueue(deps: WebhookDeps, concurrency: number, attempts: number): DeliveryQueue {
  const { storage, logger } = deps;
  if (storage.redis) {
    return createBullmqQueue({ url: storage.redis.url, prefix: storage.redis.prefix, logger, concurrency, attempts, errorDelayMs });
  }
  if (storage.shared) {
    throw new Error(`webhooks: storage "${storage.kind}" is shared but not Redis; pass webhooks.queue (a queue several processes can share)`);
  }
  return createKeyvQueue({ storage, logger, concurrency, errorDelayMs });
}

/**
 * The webhooks feature: outgoing signed deliveries (auth events from the bus, and whatever other
 * features `send`), their durable queue and history, and incoming provider webhooks.
 */
export async function createWebhooks(deps: WebhookDeps) {
  const { storage, logger } = deps;
  const resolved = resolveWebhookOptions(deps.options);
  const names = new Set(deps.environments.map((env) => env.name));
  const isEnvironment = (env: string) => names.has(env);

  const settings = createWebhookSettingsStore({ storage, cipher: deps.cipher, environments: deps.environments, cacheTtlMs: deps.cacheTtlMs });
  const sequence = createDeliverySequence(storage);
  const log = createDeliveryLog(storage, sequence, { retention: resolved.retention, scanLimit: 5_000 });
  const connectionUrls = createConnectionWebhookUrls(storage);
  const installations = createInstallationIndex(storage, deps.connections);
  const queue = deps.options?.queue ?? chooseQueue(deps, resolved.concurrency, resolved.policy.retries + 1);
  const sender = createWebhookSender({ settings, connectionUrls, sequence, log, queue, integrations: deps.integrations, isEnvironment });

  const unsubscribe = deps.events.subscribe(async (event) => {
    if (!isConnectionEvent(event)) return;
    const env = event.environment;
    if (event.type === 'connection.created' || event.type === 'connection.overridden') {
      await installations.track(env, event.provider_config_key, event.connection_id);
    }
    const authMode = deps.catalog.get(event.provider)?.auth_mode;
    await sender.send(env, authEventFor(event, authMode));
    if (event.type === 'connection.deleted') await connectionUrls.delete(env, event.provider_config_key, event.connection_id);
  });

  const poster = createWebhookPoster({ timeoutMs: resolved.policy.timeoutMs });
  await queue.start(createDeliveryHandler({ settings, log, policy: resolved.policy, logger, poster }));

  return {
    /** For other features: accept an event (sync, records, action, …) for delivery. */
    api: {
      send: sender.send,
      settings,
      deliveries: log,
      policy: resolved.policy,
      queueKind: queue.kind,
    },
    /** Behind the secret key. */
    routes: createWebhookRoutes({ settings, log, connectionUrls, connections: deps.connections }),
    /** Public: providers call these. */
    inboundRoutes: createInboundWebhookRoutes({
      isEnvironment, integrations: deps.integrations, connections: deps.connections, catalog: deps.catalog,
      routings: builtInWebhookRoutings(), installations, sender, logger, bodyLimit: resolved.inboundBodyLimit,
      budget: createByteBudget(resolved.inboundInFlightBytes), readTimeoutMs: resolved.inboundReadTimeoutMs,
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
