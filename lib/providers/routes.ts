import Router from '@koa/router';
import { fail } from '../errors.js';
import { param } from '../http/params.js';
import type { GatewayState } from '../http/state.js';
import type { Catalog } from './catalog.js';
import { publishProvider, type PublishedProvider } from './publish.js';

/**
 * Spec 4.1 and 4.2. The whole catalog in one page (it is a few hundred entries at most), each
 * entry with its `logo_url` under `baseUrl`; built once, the catalog does not change.
 */
export function createProviderRoutes(catalog: Catalog, baseUrl: string): Router<GatewayState> {
  const router = new Router<GatewayState>();
  let published: { list: PublishedProvider[]; byName: Map<string, PublishedProvider> } | undefined;
  const answers = () => {
    if (!published) {
      const list = catalog.list().map((p) => publishProvider(p, baseUrl));
      published = { list, byName: new Map(list.map((p) => [p.name, p])) };
    }
    return published;
  };
  router.get('/providers', (ctx) => {
    ctx.body = { data: answers().list };
  });
  router.get('/providers/:provider', (ctx) => {
    const provider = answers().byName.get(param(ctx, 'provider'));
    if (!provider) fail('unknown_provider', `No provider named "${param(ctx, 'provider')}" in the catalog.`);
    ctx.body = { data: provider };
  });
  return router;
}
