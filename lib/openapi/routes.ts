import type { RouteSpec } from '../http/route-spec.js';
import { buildOpenApiDocument } from './document.js';

/** `GET /openapi.json`: the document of `specs()` (every route, this one included), built at first ask. */
export function createOpenApiRoutes(specs: () => readonly RouteSpec[], serverUrl?: string): RouteSpec[] {
  let document: unknown;
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      auth: 'public',
      tag: 'meta',
      summary: 'This document',
      handler: (ctx) => {
        ctx.body = document ??= buildOpenApiDocument(specs(), serverUrl);
      },
    },
  ];
}
