import { fail } from '../errors.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';

/**
 * Where each removed `/connection` route went (removed 20 Jan 2026). Metadata has two routes
 * now, POST (replace) and PATCH (merge) `/connections/metadata`; it is read with the connection,
 * and cleared by replacing it with nothing.
 */
function replacementFor(method: string, rest: string): string {
  const metadata = /^([^/]+)\/metadata\/?$/.exec(rest);
  if (metadata) {
    if (method === 'GET' || method === 'HEAD')
      return `GET /connections/${metadata[1]}?provider_config_key=… (the connection's "metadata" field)`;
    if (method === 'DELETE') return 'POST /connections/metadata with "metadata": {} (connection ids in the body)';
    return `${method === 'PATCH' ? 'PATCH' : 'POST'} /connections/metadata (connection ids in the body)`;
  }
  return `${method} /connections${rest ? '/' + rest : ''}`;
}

export function createRemovedConnectionRoutes(): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'removed' });
  const gone = (method: string, rest: string): never =>
    fail(
      'endpoint_removed',
      `${method} /connection${rest ? '/' + rest : ''} was removed on 20 January 2026. Use ${replacementFor(method, rest)} instead; the body and the response are the same except where the API reference says otherwise.`,
      { replacement: replacementFor(method, rest) },
    );
  routes.all(
    '/connection',
    { summary: 'Removed 20 Jan 2026: answers 410 naming the /connections replacement', errors: [410] },
    (ctx) => gone(ctx.method, ''),
  );
  routes.all(
    '/connection/{*rest}',
    { summary: 'Removed 20 Jan 2026: answers 410 naming the /connections replacement', errors: [410] },
    (ctx) => gone(ctx.method, String(ctx.params.rest ?? '')),
  );
  return routes.specs;
}
