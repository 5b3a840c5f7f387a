import { fail } from '../errors.js';
import { param } from '../http/params.js';
import type { RouteSpec } from '../http/route-spec.js';
import type { Catalog } from './catalog.js';
import { publishProvider, type PublishedProvider } from './publish.js';

/**
 * Spec 4.1 and 4.2. The whole catalog in one page (it is a few hundred entries at most), each
 * entry with its `logo_url` under `baseUrl`; built once, the catalog does not change.
 */
export function createProviderRoutes(catalog: Catalog, baseUrl: string): RouteSpec[] {
  let published: { list: PublishedProvider[]; byName: Map<string, PublishedProvider> } | undefined;
  const answers = () => {
    if (!published) {
      const list = catalog.list().map((p) => publishProvider(p, baseUrl));
      published = { list, byName: new Map(list.map((p) => [p.name, p])) };
    }
    return published;
  };
  return [
    {
      method: 'GET',
      path: '/providers',
      auth: 'secret_key',
      tag: 'providers',
      summary: 'The provider catalog (spec 4.1)',
      handler: (ctx) => {
        ctx.body = { data: answers().list };
      },
    },
    {
      method: 'GET',
      path: '/providers/:provider',
      auth: 'secret_key',
      tag: 'providers',
      summary: 'One provider (spec 4.2)',
      errors: [404],
      handler: (ctx) => {
        const provider = answers().byName.get(param(ctx, 'provider'));
        if (!provider) fail('unknown_provider', `No provider named "${param(ctx, 'provider')}" in the catalog.`);
        ctx.body = { data: provider };
      },
    },
  ];
}
