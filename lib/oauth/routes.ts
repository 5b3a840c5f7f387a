import type Router from '@koa/router';
import type { GatewayState } from '../http/state.js';
import { createCallbackRoutes } from './callback-routes.js';
import { createConnectRoutes } from './connect-routes.js';
import type { OAuthDeps } from './deps.js';

/** Every public route of the end user's authorization: connect link, form, callback, app setup. */
export function createOAuthRoutes(deps: OAuthDeps): Router<GatewayState>[] {
  return [createConnectRoutes(deps), createCallbackRoutes(deps)];
}
