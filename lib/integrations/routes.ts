import { fail } from '../errors.js';
import { readJson } from '../http/body.js';
import { parseOrFail } from '../http/validate.js';
import { param } from '../http/params.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';
import { publicIntegration, type IntegrationUrls } from './integration.js';
import { createIntegrationSchema, updateIntegrationSchema } from './schema.js';
import type { IntegrationService } from './service.js';

export interface IntegrationRoutesDeps {
  integrations: IntegrationService;
  urls: IntegrationUrls;
  /** Removes an integration's connections when the integration is deleted. */
  deleteConnectionsOf(env: string, uniqueKey: string): Promise<number>;
}

export function createIntegrationRoutes(deps: IntegrationRoutesDeps): RouteSpec[] {
  const { integrations, urls } = deps;
  const routes = defineRoutes({ auth: 'secret_key', tag: 'integrations' });
  const view = (i: Parameters<typeof publicIntegration>[0]) => publicIntegration(i, urls);

  routes.post(
    '/integrations',
    { summary: 'Create an integration', body: createIntegrationSchema, success: 201, errors: [404, 409] },
    async (ctx) => {
      const input = parseOrFail(createIntegrationSchema, await readJson(ctx));
      const created = await integrations.create(ctx.state.environment.name, input);
      ctx.status = 201;
      ctx.body = { data: view(created) };
    },
  );

  routes.get('/integrations', { summary: 'List integrations' }, async (ctx) => {
    ctx.body = { data: (await integrations.list(ctx.state.environment.name)).map(view) };
  });

  routes.get(
    '/integrations/:uniqueKey',
    { summary: 'Get an integration (secrets masked)', errors: [404] },
    async (ctx) => {
      ctx.body = { data: view(await integrations.require(ctx.state.environment.name, param(ctx, 'uniqueKey'))) };
    },
  );

  routes.patch(
    '/integrations/:uniqueKey',
    { summary: 'Update an integration (e.g. a renewed client secret)', body: updateIntegrationSchema, errors: [404] },
    async (ctx) => {
      const update = parseOrFail(updateIntegrationSchema, await readJson(ctx));
      ctx.body = { data: view(await integrations.update(ctx.state.environment.name, param(ctx, 'uniqueKey'), update)) };
    },
  );

  routes.delete(
    '/integrations/:uniqueKey',
    { summary: 'Delete an integration and its connections', errors: [404] },
    async (ctx) => {
      const env = ctx.state.environment.name;
      const key = param(ctx, 'uniqueKey');
      await integrations.require(env, key);
      const removed = await deps.deleteConnectionsOf(env, key);
      if (!(await integrations.delete(env, key)))
        fail('unknown_integration', `No integration with unique_key "${key}".`);
      ctx.body = { data: { unique_key: key, deleted: true, deleted_connections: removed } };
    },
  );

  return routes.specs;
}
