import type { Context } from 'koa';
import type { ConnectionService } from '../connections/index.js';
import { fail } from '../errors.js';
import { readJson } from '../http/body.js';
import { decodeOffsetCursor, encodeOffsetCursor } from '../http/offset-cursor.js';
import { param } from '../http/params.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';
import type { GatewayState } from '../http/state.js';
import { parseOrFail } from '../http/validate.js';
import { maskSecret, uniqueKey } from '../integrations/index.js';
import type { ConnectionWebhookUrls } from './connection-urls.js';
import type { DeliveryLog, DeliveryRecord } from './deliveries.js';
import type { EventLog } from './event-log.js';
import { connectionWebhookUrlSchema, deliveriesQuery, environmentPatchSchema, eventsQuery } from './schema.js';
import { signatureHeaders } from './signing.js';
import type { WebhookSettings, WebhookSettingsStore } from './settings.js';

export interface WebhookRoutesDeps {
  settings: WebhookSettingsStore;
  log: DeliveryLog;
  events: EventLog;
  /** Sends a delivery again (see redeliver.ts). */
  redeliver(env: string, deliveryId: string): Promise<DeliveryRecord[]>;
  connectionUrls: ConnectionWebhookUrls;
  connections: ConnectionService;
}

const recordView = ({ environment: _env, seq: _seq, event_seq: _event, ...record }: DeliveryRecord) => record;

const view = (env: string, s: WebhookSettings, revealKey = false) => ({
  name: env,
  webhook_url: s.webhook_url,
  webhook_secondary_url: s.webhook_secondary_url,
  webhook_signing_key: revealKey ? s.signing_key : maskSecret(s.signing_key),
  webhook_signing_key_source: s.signing_key_source,
  webhook_signing_key_created_at: s.signing_key_created_at,
});

function providerConfigKeyOf(ctx: Context): string {
  const value =
    (typeof ctx.query.provider_config_key === 'string' ? ctx.query.provider_config_key : '') ||
    ctx.get('provider-config-key');
  if (!value)
    fail(
      'missing_provider_config_key',
      'Name the integration: ?provider_config_key=… or the Provider-Config-Key header.',
    );
  return parseOrFail(uniqueKey, value, 'invalid_request');
}

/** The environment's webhook settings, the delivery history, and a connection's own webhook URL. */
export function createWebhookRoutes(deps: WebhookRoutesDeps): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'webhooks' });

  routes.get('/environment', { summary: "The environment's webhook URLs and signing key (masked)" }, async (ctx) => {
    const env = ctx.state.environment.name;
    ctx.body = { data: view(env, await deps.settings.get(env)) };
  });

  routes.patch(
    '/environment',
    { summary: 'Set or clear (null) the webhook URL and secondary URL', body: environmentPatchSchema },
    async (ctx) => {
      const env = ctx.state.environment.name;
      const patch = parseOrFail(environmentPatchSchema, await readJson(ctx));
      ctx.body = { data: view(env, await deps.settings.update(env, patch)) };
    },
  );

  // The only answer that shows the whole key: store it now.
  routes.post(
    '/environment/webhook-signing-key',
    { summary: 'Rotate the webhook signing key; the answer shows the new key once' },
    async (ctx) => {
      const env = ctx.state.environment.name;
      ctx.body = { data: view(env, await deps.settings.rotateSigningKey(env), true) };
    },
  );

  routes.get(
    '/webhooks/deliveries',
    {
      summary: 'Webhook deliveries, newest first, with every attempt',
      query: {
        connection_id: 'connection filter',
        provider_config_key: 'integration filter',
        type: 'auth, sync, records, action or forward',
        state: 'pending, delivered, failed or skipped',
        delivery_id: 'one event',
        limit: '1-500, default 100',
        cursor: 'next_cursor of the previous page',
      },
      errors: [400],
    },
    async (ctx) => {
      const env = ctx.state.environment.name;
      const query = parseOrFail(deliveriesQuery, ctx.query, 'invalid_request');
      const before = query.cursor === undefined ? undefined : decodeOffsetCursor(query.cursor, 'webhook-deliveries');
      const page = await deps.log.list(env, query, query.limit, before);
      ctx.body = {
        data: page.records.map(recordView),
        next_cursor: page.next === null ? null : encodeOffsetCursor(page.next, 'webhook-deliveries'),
      };
    },
  );

  routes.post(
    '/webhooks/deliveries/:id/retry',
    {
      summary:
        'Send a delivery (by delivery_id) again: same body, new attempts appended; 409 while it is still being attempted',
      success: 202,
      errors: [400, 404, 409, 410],
    },
    async (ctx) => {
      const id = param(ctx, 'id');
      if (!/^[0-9a-f-]{36}$/i.test(id))
        fail('invalid_request', 'id: a delivery_id (UUID) from GET /webhooks/deliveries.', { field: 'id' });
      ctx.status = 202;
      ctx.body = { data: (await deps.redeliver(ctx.state.environment.name, id)).map(recordView) };
    },
  );

  // The replay feed: every event in the order accepted, with the body and signatures a delivery carries.
  routes.get(
    '/webhooks/events',
    {
      summary: 'Replay feed: every event in the order accepted, with its exact body and current signatures',
      query: {
        after: 'the seq (next_after) last processed; default 0: from the oldest kept',
        limit: '1-500, default 100',
      },
      errors: [400],
    },
    async (ctx) => {
      const env = ctx.state.environment.name;
      const query = parseOrFail(eventsQuery, ctx.query, 'invalid_request');
      const page = await deps.events.after(env, query.after, query.limit);
      const { signing_key: key } = await deps.settings.get(env);
      ctx.body = {
        data: page.events.map((e) => ({ ...e, signatures: signatureHeaders(Buffer.from(e.body, 'utf8'), key) })),
        next_after: page.next_after,
        has_more: page.has_more,
      };
    },
  );

  const connectionOf = async (ctx: Context & { params: Record<string, string | undefined>; state: GatewayState }) => {
    const env = ctx.state.environment.name;
    const connection = await deps.connections.require(env, providerConfigKeyOf(ctx), param(ctx, 'connectionId'));
    return { env, pck: connection.provider_config_key, cid: connection.connection_id };
  };

  routes.get(
    '/connections/:connectionId/webhook-url',
    {
      summary: "The connection's own webhook URL (null: the environment's)",
      query: { provider_config_key: 'or the Provider-Config-Key header' },
      errors: [400, 404],
    },
    async (ctx) => {
      const { env, pck, cid } = await connectionOf(ctx);
      ctx.body = {
        data: {
          connection_id: cid,
          provider_config_key: pck,
          webhook_url: (await deps.connectionUrls.get(env, pck, cid)) ?? null,
        },
      };
    },
  );

  routes.put(
    '/connections/:connectionId/webhook-url',
    {
      summary: "Send this connection's webhooks to its own URL instead of the environment's",
      body: connectionWebhookUrlSchema,
      query: { provider_config_key: 'or the Provider-Config-Key header' },
      errors: [404],
    },
    async (ctx) => {
      const { env, pck, cid } = await connectionOf(ctx);
      const body = parseOrFail(connectionWebhookUrlSchema, await readJson(ctx));
      await deps.connectionUrls.set(env, pck, cid, body.webhook_url);
      ctx.body = { data: { connection_id: cid, provider_config_key: pck, webhook_url: body.webhook_url } };
    },
  );

  routes.delete(
    '/connections/:connectionId/webhook-url',
    {
      summary: "Back to the environment's webhook URLs",
      query: { provider_config_key: 'or the Provider-Config-Key header' },
      errors: [400, 404],
    },
    async (ctx) => {
      const { env, pck, cid } = await connectionOf(ctx);
      await deps.connectionUrls.delete(env, pck, cid);
      ctx.body = { data: { connection_id: cid, provider_config_key: pck, webhook_url: null } };
    },
  );

  return routes.specs;
}
