import Router from '@koa/router';
import { readJson } from '../../http/body.js';
import type { GatewayState } from '../../http/state.js';
import { parseOrFail } from '../../http/validate.js';
import type { RoutesApi } from './api.js';
import { syncSelectionSchema, syncStatusQuery, triggerSyncSchema } from './schema.js';

const selection = (body: { provider_config_key: string; syncs?: string[] | undefined; connection_id?: string | undefined }) => ({
  providerConfigKey: body.provider_config_key, syncs: body.syncs, connectionId: body.connection_id,
});

/** `POST /sync/trigger|pause|start`, `GET /sync/status`. */
export function createSyncRoutes(api: RoutesApi): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/sync/trigger', async (ctx) => {
    const body = parseOrFail(triggerSyncSchema, await readJson(ctx));
    const result = await api.syncs.trigger(ctx.state.environment.name, { ...selection(body), mode: body.mode, logLevel: body.log_level });
    ctx.status = 202;
    ctx.body = { data: { mode: body.mode, ...result } };
  });

  router.post('/sync/pause', async (ctx) => {
    const body = parseOrFail(syncSelectionSchema, await readJson(ctx));
    ctx.body = { data: { paused: await api.syncs.pause(ctx.state.environment.name, selection(body)) } };
  });

  router.post('/sync/start', async (ctx) => {
    const body = parseOrFail(syncSelectionSchema, await readJson(ctx));
    ctx.body = { data: { started: await api.syncs.start(ctx.state.environment.name, selection(body)) } };
  });

  router.get('/sync/status', async (ctx) => {
    const query = parseOrFail(syncStatusQuery, ctx.query, 'invalid_request');
    ctx.body = { data: await api.syncs.status(ctx.state.environment.name, selection(query)) };
  });

  return router;
}
