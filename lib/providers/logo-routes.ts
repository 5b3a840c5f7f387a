import { fail } from '../errors.js';
import { param } from '../http/params.js';
import type { RouteSpec } from '../http/route-spec.js';
import type { Catalog } from './catalog.js';
import type { Logos } from './logos.js';

/** A week: a logo changes only with a new simple-icons release or a renamed provider; the ETag revalidates after. */
const maxAgeSeconds = 7 * 24 * 3600;

/**
 * `GET /providers/{name}/logo.svg`, public: customer UIs and the connect pages show it in `<img>`
 * with no key. The SVG is built here from path data and escaped text only, and is served so that
 * a browser opening it directly runs nothing (`default-src 'none'`, sandboxed) and never sniffs
 * it as anything else.
 */
export function createLogoRoutes(catalog: Catalog, logos: Logos): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/providers/:provider/logo.svg',
      auth: 'public',
      tag: 'providers',
      errors: [404],
      summary:
        "The provider's logo (image/svg+xml): its simple-icons brand mark, or a monogram; cached a week, with an ETag",
      handler: (ctx) => {
        const provider = catalog.get(param(ctx, 'provider'));
        if (!provider) fail('unknown_provider', `No provider named "${param(ctx, 'provider')}" in the catalog.`);
        const logo = logos.get(provider);
        ctx.set('Cache-Control', `public, max-age=${maxAgeSeconds}, immutable`);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
        // Embeddable from the customer's own origin (an <img> on their pages).
        ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
        ctx.etag = logo.etag;
        ctx.status = 200;
        if (ctx.fresh) {
          ctx.status = 304;
          return;
        }
        ctx.type = 'image/svg+xml';
        ctx.body = logo.svg;
      },
    },
  ];
}
