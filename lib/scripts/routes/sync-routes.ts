import { fail } from '../../errors.js';
import { readJson } from '../../http/body.js';
import { defineRoutes, type RouteSpec } from '../../http/route-spec.js';
import { parseOrFail } from '../../http/validate.js';
import type { RoutesApi } from './api.js';
import { syncSelectionSchema, syncStatusQuery, triggerSyncSchema } from './schema.js';

const selection = (body: {
  provider_config_key: string;
  syncs?: string[] | undefined;
  connection_id?: string | undefined;
}) => ({
  providerConfigKey: body.provider_config_key,
  syncs: body.syncs,
  connectionId: body.connection_id,
});

/** `POST /sync/trigger|pause|start`, `GET /sync/status`. */
export function createSyncRoutes(api: RoutesApi): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'scripts' });

  routes.post(
    '/sync/trigger',
    {
      summary: 'Queue sync runs (incremental or full) for one or every connection of an integration; 202',
      body: triggerSyncSchema,
      success: 202,
      errors: [404],
    },
    async (ctx) => {
      const body = parseOrFail(triggerSyncSchema, await readJson(ctx));
      const result = await api.syncs.trigger(ctx.state.environment.name, {
        ...selection(body),
        mode: body.mode,
        logLevel: body.log_level,
      });
      ctx.status = 202;
      // The mode of the runs queued: `full` when every one of them is (a sync that is not
      // incremental refetches everything whatever was asked); each queued run names its own.
      const mode = result.queued.length > 0 && result.queued.every((q) => q.mode === 'full') ? 'full' : body.mode;
      ctx.body = { data: { mode, ...result } };
    },
  );

  routes.post(
    '/sync/pause',
    { summary: 'Pause syncs: scheduled runs are skipped until started', body: syncSelectionSchema, errors: [404] },
    async (ctx) => {
      const body = parseOrFail(syncSelectionSchema, await readJson(ctx));
      ctx.body = { data: { paused: await api.syncs.pause(ctx.state.environment.name, selection(body)) } };
    },
  );

  routes.post(
    '/sync/start',
    { summary: 'Start (resume) syncs; one that never ran runs now', body: syncSelectionSchema, errors: [404] },
    async (ctx) => {
      const body = parseOrFail(syncSelectionSchema, await readJson(ctx));
      ctx.body = { data: { started: await api.syncs.start(ctx.state.environment.name, selection(body)) } };
    },
  );

  routes.get(
    '/sync/status',
    {
      summary: 'Status, latest run and next run of syncs per connection',
      query: {
        provider_config_key: 'integration (required)',
        syncs: 'comma-separated sync names, or * (default: all)',
        connection_id: 'one connection (default: all)',
      },
      errors: [400, 404],
    },
    async (ctx) => {
      // The one required parameter gets its own answer, not the validator's wording.
      const key = ctx.query.provider_config_key;
      if (key === undefined || key === '')
        fail(
          'missing_provider_config_key',
          'Name the integration: GET /sync/status?provider_config_key=<integration>[&syncs=a,b][&connection_id=…].',
        );
      if (Array.isArray(key))
        fail('invalid_request', 'provider_config_key: give it once.', { field: 'provider_config_key' });
      const query = parseOrFail(syncStatusQuery, ctx.query, 'invalid_request');
      ctx.body = { data: await api.syncs.status(ctx.state.environment.name, selection(query)) };
    },
  );

  return routes.specs;
}
