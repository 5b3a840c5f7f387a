import Router from '@koa/router';
import { fail } from '../errors.js';
import type { GatewayState } from '../http/state.js';

/** Where each removed `/connection` route went (spec 4.6, 4.8, 9: removed 20 Jan 2026). */
function replacementFor(method: string, rest: string): string {
  if (/^[^/]+\/metadata\/?$/.test(rest)) return `${method} /connections/metadata (connection ids in the body)`;
  return `${method} /connections${rest ? '/' + rest : ''}`;
}

export function createRemovedConnectionRoutes(): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const gone = (method: string, rest: string): never =>
    fail('endpoint_removed', `${method} /connection${rest ? '/' + rest : ''} was removed on 20 January 2026. Use ${replacementFor(method, rest)} instead; the body and the response are the same except where the API reference says otherwise.`, { replacement: replacementFor(method, rest) });
  router.all('/connection', (ctx) => gone(ctx.method, ''));
  router.all('/connection/{*rest}', (ctx) => gone(ctx.method, String(ctx.params.rest ?? '')));
  return router;
}
