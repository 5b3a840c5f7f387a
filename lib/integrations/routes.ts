import Router from '@koa/router';
import { fail } from '../errors.js';
import { readJson } from '../http/body.js';
import { parseOrFail } from '../http/validate.js';
import { param } from '../http/params.js';
import type { GatewayState } from '../http/state.js';
import { publicIntegration, type IntegrationUrls } from './integration.js';
import { createIntegrationSchema, updateIntegrationSchema } from './schema.js';
import type { IntegrationService } from './service.js';

export interface IntegrationRoutesDeps {
  integrations: IntegrationService;
  urls: IntegrationUrls;
  /** Removes an integration's connections when the integration is deleted. */
  deleteConnectionsOf(env: string, uniqueKey: string): Promise<number>;
}

export function createIntegrationRoutes(deps: IntegrationRoutesDeps): Router<GatewayState> {
  const { integrations, urls } = deps;
  const router = new Router<GatewayState>();
  const view = (i: Parameters<typeof publicIntegration>[0]) => publicIntegration(i, urls);

  router.post('/integrations', async (ctx) => {
    const input = parseOrFail(createIntegrationSchema, await readJson(ctx));
    const created = await integrations.create(ctx.state.environment.name, input);
    ctx.status = 201;
    ctx.body = { data: view(created) };
  });

  router.get('/integrations', async (ctx) => {
    ctx.body = { data: (await integrations.list(ctx.state.environment.name)).map(view) };
  });

  router.get('/integrations/:uniqueKey', async (ctx) => {
    ctx.body = { data: view(await integrations.require(ctx.state.environment.name, param(ctx, 'uniqueKey'))) };
  });

  router.patch('/integrations/:uniqueKey', async (ctx) => {
    const update = parseOrFail(updateIntegrationSchema, await readJson(ctx));
    ctx.body = { data: view(await integrations.update(ctx.state.environment.name, param(ctx, 'uniqueKey'), update)) };
  });

  router.delete('/integrations/:uniqueKey', async (ctx) => {
    const env = ctx.state.environment.name;
    const key = param(ctx, 'uniqueKey');
    await integrations.require(env, key);
    const removed = await deps.deleteConnectionsOf(env, key);
    if (!(await integrations.delete(env, key))) fail('unknown_integration', `No integration with unique_key "${key}".`);
    ctx.body = { data: { unique_key: key, deleted: true, deleted_connections: removed } };
  });

  return router;
}
