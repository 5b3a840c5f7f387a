import { answerError } from '../errors.js';
import { pathBeforeQuery, type HttpContext } from './context.js';
import type { Logger, UpstreamFields } from './logger.js';
import { createRequestIds } from './request-id.js';

const clientRequestId = /^[\w.-]{1,64}$/;

/** Koa's `ctx.path` without its URL parse for the usual origin-form target (`/a/b?c`): the part before `?`. */
function pathOf(ctx: HttpContext): string {
  const url = ctx.req.url ?? '';
  return url.charCodeAt(0) !== 47 || url.includes('#') ? ctx.path : pathBeforeQuery(url);
}

/**
 * The edge of the stack, around `inner` (no compose in between): gives each request an id (echoed as `X-Request-Id`:
 * set here for what Koa answers, by the proxy for the provider responses it writes itself),
 * turns anything thrown into the one error shape, then logs one line with the status the
 * caller got — for a response that streams on (a proxied body), when it ends. The line is
 * skipped (and its fields never built) when the logger does not write `info`.
 */
export function createEdge<C extends HttpContext>(
  logger: Logger,
  inner: (ctx: C, next: () => Promise<void>) => unknown,
  nextId: () => string = createRequestIds(),
): (ctx: C, next: () => Promise<void>) => Promise<void> {
  const logging = logger.enabled?.('info') ?? true;
  const request = logger.request ?? ((fields: Record<string, unknown>) => logger.info('request', fields));

  const finish = (ctx: C, id: string, started: number) => {
    // Set last, for Koa to send; a response written already (the proxy's) carries it itself.
    if (!ctx.res.headersSent) ctx.res.setHeader('X-Request-Id', id);
    if (!logging) return;
    const line = () => {
      const upstream = ctx.state.upstream as UpstreamFields | undefined;
      const duration = Math.round((performance.now() - started) * 100) / 100;
      const environment = ctx.state.environment?.name;
      // Node's own fields, not Koa's delegating getters (`ctx.method`, `ctx.status` read these).
      const method = ctx.req.method;
      const status = ctx.res.statusCode;
      // One literal, every field in one order whether or not the request was proxied: the line's
      // builder then sees one object shape (two shapes made its field reads generic calls).
      request({
        request_id: id,
        method,
        path: pathOf(ctx),
        status,
        duration_ms: duration,
        environment,
        integration: upstream?.integration,
        connection: upstream?.connection,
        provider_host: upstream?.provider_host,
        provider_status: upstream?.provider_status,
        upstream_ms: upstream?.upstream_ms,
      });
    };
    // A response still streaming (a proxied body) is logged when it ends.
    // `on`, not `once`: a response closes once, and `once` wraps each listener in a closure of its own.
    if (ctx.respond === false && !ctx.res.writableEnded && !ctx.res.destroyed) ctx.res.on('close', line);
    else line();
  };

  // Not an async function: one promise per request (the inner one's continuation) instead of two.
  return function edge(ctx, next) {
    const started = logging ? performance.now() : 0;
    const incoming = ctx.req.headers['x-request-id'];
    const id = typeof incoming === 'string' && clientRequestId.test(incoming) ? incoming : nextId();
    ctx.state.requestId = id;
    const failed = (error: unknown) => {
      answerError(ctx, error, logger);
      finish(ctx, id, started);
    };
    let result: unknown;
    try {
      result = inner(ctx, next);
    } catch (error) {
      failed(error);
      return Promise.resolve();
    }
    return Promise.resolve(result).then(() => finish(ctx, id, started), failed);
  };
}
