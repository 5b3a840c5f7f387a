import Router from '@koa/router';
import type { GatewayState } from '../http/state.js';
import { buildOpenApiDocument } from './document.js';

export function createOpenApiRoutes(serverUrl?: string): Router<GatewayState> {
  const router = new Router<GatewayState>();
  let document: unknown;
  router.get('/openapi.json', (ctx) => {
    ctx.body = document ??= buildOpenApiDocument(serverUrl);
  });
  return router;
}
