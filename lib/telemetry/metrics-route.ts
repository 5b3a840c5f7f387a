import { createHash, timingSafeEqual } from 'node:crypto';
import { fail } from '../errors.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';
import type { Metrics } from './metrics.js';

const bearer = /^Bearer\s+(\S+)\s*$/i;
const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `GET /metrics` behind a token of its own (a scraper never holds a secret key). Both sides
 * are hashed first, so the comparison takes the same time whatever the length presented.
 */
export function createMetricsRoutes(metrics: Metrics, token: string): RouteSpec[] {
  const expected = digest(token);
  const routes = defineRoutes({ auth: 'metrics_token', tag: 'meta' });
  routes.get('/metrics', { summary: 'Prometheus metrics (text exposition format)' }, async (ctx) => {
    const presented = bearer.exec(ctx.get('authorization'))?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      fail('unauthorized', 'GET /metrics needs "Authorization: Bearer <metrics token>".');
    }
    const { contentType, body } = await metrics.scrape();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  });
  return routes.specs;
}
