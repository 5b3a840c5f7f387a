import type Router from '@koa/router';
import { isPublic, methodsOf, toRouter, type RouteSpec } from './route-spec.js';
import type { GatewayState } from './state.js';

/** One row of `gateway.routes()`: what a route table or a docs check needs. */
export interface RouteInfo {
  method: string;
  path: string;
  auth: 'secret_key' | 'public';
}

/**
 * The gateway's two stacks from the features' route lists, in order: one router per list for
 * the routes that answer before the secret-key check, one per list for the rest.
 */
export function routeTable(groups: readonly (readonly RouteSpec[])[]) {
  const routers = (keep: (spec: RouteSpec) => boolean): Router<GatewayState>[] =>
    groups
      .map((group) => group.filter(keep))
      .filter((group) => group.length > 0)
      .map(toRouter);
  const describe = (specs: readonly RouteSpec[], auth: RouteInfo['auth']): RouteInfo[] =>
    specs.flatMap((spec) => methodsOf(spec).map((method) => ({ method, path: spec.path, auth })));
  return {
    publicRouters: routers(isPublic),
    protectedRouters: routers((spec) => !isPublic(spec)),
    /** Every method and path served, public ones first (HEAD comes with GET and is not listed). */
    routes: (): RouteInfo[] => {
      const all = groups.flat();
      return [
        ...describe(all.filter(isPublic), 'public'),
        ...describe(
          all.filter((s) => !isPublic(s)),
          'secret_key',
        ),
      ];
    },
  };
}
