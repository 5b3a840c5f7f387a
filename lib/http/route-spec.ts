import Router, { type RouterMiddleware } from '@koa/router';
import type { z } from 'zod';
import type { GatewayState } from './state.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * Who may call a route. `deploy_key`: the secret key or the environment's deploy key;
 * `metrics_token`: the metrics token only (a scraper never holds a secret key). Only
 * `public` and `metrics_token` routes answer before the secret-key check.
 */
export type RouteAuth = 'public' | 'secret_key' | 'deploy_key' | 'metrics_token';

/**
 * One HTTP route, declared once: the gateway builds its routers, its route table and the
 * OpenAPI document from the list each feature exports.
 */
export interface RouteSpec {
  /** `ALL`: every method answers the same (a removed route's 410). HEAD comes with GET. */
  method: HttpMethod | readonly HttpMethod[] | 'ALL';
  /** A router path: `:name` parameters, `{*rest}` for the remainder. */
  path: string;
  auth: RouteAuth;
  tag: string;
  summary: string;
  /** The JSON request body's schema (its input side is documented). */
  body?: z.ZodType;
  /** The success answer's schema, where one is written down (its output side is documented). */
  response?: z.ZodType;
  /** Query parameters, name → description. */
  query?: Record<string, string>;
  /** Headers (beyond Authorization) the route requires. */
  headers?: readonly string[];
  /** The success status when not 200. */
  success?: number;
  /** Error statuses besides those the auth, the body and every route answer (see errorStatusesOf). */
  errors?: readonly number[];
  /** `page`: answers the end user's browser with HTML pages, failures included (never the JSON envelope). */
  answers?: 'page';
  handler: RouterMiddleware<GatewayState>;
}

/** The methods a route table lists for `ALL`: the router answers others too, these are documented. */
export const allMethods: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export const methodsOf = (spec: RouteSpec): readonly HttpMethod[] =>
  spec.method === 'ALL' ? allMethods : typeof spec.method === 'string' ? [spec.method as HttpMethod] : spec.method;

/** Routes that answer without the secret key (each checks what it needs itself). */
export const isPublic = (spec: RouteSpec): boolean => spec.auth === 'public' || spec.auth === 'metrics_token';

/** Statuses a route can answer with an error: its own, plus what its auth and body imply, plus 500/503. */
export function errorStatusesOf(spec: RouteSpec): number[] {
  const statuses = new Set(spec.errors ?? []);
  if (spec.auth !== 'public') statuses.add(401);
  if (spec.auth === 'deploy_key') statuses.add(403);
  // readJson: bad JSON or a failed schema 400, too large 413, not JSON 415.
  if (spec.body) for (const status of [400, 413, 415]) statuses.add(status);
  for (const status of [500, 503]) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

/** One router serving `specs` in order, as the features' hand-written routers did. */
export function toRouter(specs: readonly RouteSpec[]): Router<GatewayState> {
  const router = new Router<GatewayState>();
  for (const spec of specs) {
    if (spec.method === 'ALL') router.all(spec.path, spec.handler);
    else router.register(spec.path, [...methodsOf(spec)], spec.handler);
  }
  return router;
}

/** `/connections/:connectionId` → `/connections/{connectionId}`, `{*rest}` → `{rest}`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}').replace(/\{\*(\w+)\}/g, '{$1}');

type RouteMeta = Omit<RouteSpec, 'method' | 'path' | 'handler' | 'auth' | 'tag'> &
  Partial<Pick<RouteSpec, 'auth' | 'tag'>>;
type Add = (path: string, meta: RouteMeta, handler: RouteSpec['handler']) => void;

/**
 * The tiny builder: `routes.get(path, { summary }, handler)` reads like a router, and collects
 * specs with the feature's default auth and tag (`routes.specs`, in declaration order).
 */
export function defineRoutes(
  defaults: Pick<RouteSpec, 'auth' | 'tag'> & Pick<Partial<RouteSpec>, 'answers' | 'errors'>,
) {
  const specs: RouteSpec[] = [];
  const adder =
    (method: RouteSpec['method']): Add =>
    (path, meta, handler) => {
      specs.push({ ...defaults, ...meta, method, path, handler });
    };
  return {
    specs,
    get: adder('GET'),
    post: adder('POST'),
    put: adder('PUT'),
    patch: adder('PATCH'),
    delete: adder('DELETE'),
    all: adder('ALL'),
  };
}
