import type { RouteSpec } from '../http/route-spec.js';
import type { Readiness } from './readiness.js';
import { livenessSchema, readinessSchema } from './schema.js';

/**
 * `GET /health` is liveness (the process runs: 200); `GET /health/ready` is readiness, for load
 * balancers: 200 when every registered check passes, else 503, with each check's result.
 */
export function createHealthRoutes(readiness: Readiness): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/health',
      auth: 'public',
      tag: 'meta',
      summary: 'Liveness: answers 200 while the gateway runs',
      response: livenessSchema,
      handler: (ctx) => {
        ctx.body = { status: 'ok' };
      },
    },
    {
      method: 'GET',
      path: '/health/ready',
      auth: 'public',
      tag: 'meta',
      summary: 'Readiness for load balancers: 200 when the store and the registered workers answer, else 503',
      response: readinessSchema,
      handler: async (ctx) => {
        const report = await readiness.report();
        ctx.status = report.ready ? 200 : 503;
        if (!report.ready) ctx.set('Retry-After', '5');
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { status: report.ready ? 'ready' : 'unavailable', checks: report.checks };
      },
    },
  ];
}
