import Router from '@koa/router';
import type { GatewayState } from '../http/state.js';
import type { Readiness } from './readiness.js';

/**
 * `GET /health` is liveness (the process runs: 200); `GET /health/ready` is readiness, for load
 * balancers: 200 when every registered check passes, else 503, with each check's result.
 */
export function createHealthRoutes(readiness: Readiness): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/health/ready', async (ctx) => {
    const report = await readiness.report();
    ctx.status = report.ready ? 200 : 503;
    if (!report.ready) ctx.set('Retry-After', '5');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: report.ready ? 'ready' : 'unavailable', checks: report.checks };
  });
  return router;
}
