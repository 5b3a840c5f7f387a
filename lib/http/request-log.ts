import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from './logger.js';

/** Gives each request an id (echoed as `X-Request-Id`) and logs one line when it ends. */
export function createRequestLog(logger: Logger): Middleware {
  return async function requestLog(ctx, next) {
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const id = /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    try {
      await next();
    } finally {
      logger.info('request', {
        request_id: id,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        environment: ctx.state.environment?.name,
      });
    }
  };
}
