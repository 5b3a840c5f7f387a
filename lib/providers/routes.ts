import Router from '@koa/router';
import { fail } from '../errors.js';
import { param } from '../http/params.js';
import type { GatewayState } from '../http/state.js';
import type { Catalog } from './catalog.js';

/** Spec 4.1 and 4.2. The whole catalog in one page (it is a few hundred entries at most). */
export function createProviderRoutes(catalog: Catalog): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/providers', (ctx) => {
    ctx.body = { data: catalog.list() };
  });
  router.get('/providers/:provider', (ctx) => {
    const provider = catalog.get(param(ctx, 'provider'));
    if (!provider) fail('unknown_provider', `No provider named "${param(ctx, 'provider')}" in the catalog.`);
    ctx.body = { data: provider };
  });
  return router;
}
