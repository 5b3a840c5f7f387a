import type { RouteSpec } from '../../http/route-spec.js';
import { createActionRoutes } from './action-routes.js';
import type { RoutesApi } from './api.js';
import { createScriptAdminRoutes } from './script-routes.js';
import { createSyncRoutes } from './sync-routes.js';

export type { RoutesApi } from './api.js';
export { describeScript } from './script-routes.js';
export { triggerSyncSchema, syncSelectionSchema, triggerActionSchema, deploySchema } from './schema.js';

/** Every scripts route, behind the secret key. */
export function createScriptRoutes(api: RoutesApi): RouteSpec[] {
  return [...createSyncRoutes(api), ...createActionRoutes(api), ...createScriptAdminRoutes(api)];
}
