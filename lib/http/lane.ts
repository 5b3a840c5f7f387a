import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathBeforeQuery, type HttpContext } from './context.js';
import type { Logger } from './logger.js';
import type { GatewayState } from './state.js';

/**
 * The context of a request on the proxy lane: the few fields the edge and the proxy use, where
 * Koa builds three objects per request (context, request, response), a 404 default, an
 * on-finished watch of the response and a respond step. Measured on this stack's forwarder,
 * Koa's part is about a tenth of a proxied call's CPU (bench/README.md, session 9).
 */
class LaneContext implements HttpContext {
  state = {} as GatewayState;
  respond: boolean | undefined = undefined;
  body: unknown = undefined;
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {}
  get method(): string {
    return this.req.method ?? 'GET';
  }
  get path(): string {
    return pathBeforeQuery(this.req.url ?? '/');
  }
  get status(): number {
    return this.res.statusCode;
  }
  set status(code: number) {
    if (!this.res.headersSent) this.res.statusCode = code;
  }
  set(field: string, value: string): void {
    if (!this.res.headersSent) this.res.setHeader(field, value);
  }
}

/** Sends what the handler left to send: a JSON body (an error answer), or an empty one. */
function respond(ctx: LaneContext): void {
  const { req, res } = ctx;
  if (ctx.respond === false || res.writableEnded || res.destroyed) return;
  // Part of a provider's answer went out and then the call failed: no answer can follow it.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (ctx.body === undefined || ctx.body === null) {
    res.end();
    return;
  }
  const text = JSON.stringify(ctx.body);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(req.method === 'HEAD' ? undefined : text);
}

export type LaneHandler = (ctx: HttpContext, next: () => Promise<void>) => Promise<void>;

const nothing = () => Promise.resolve();

/**
 * A Node `(req, res)` handler running `handler` (the edge around the proxy) on a lane context.
 * `handler` answers its own errors (the edge does); anything thrown past it is logged and the
 * connection cut, never left hanging.
 */
export function createLane(handler: LaneHandler, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const failed = (ctx: LaneContext, error: unknown) => {
    logger.error('unhandled error', {
      request_id: ctx.state.requestId,
      error: error instanceof Error ? error.message : String(error),
    });
    ctx.res.destroy();
  };
  return (req, res) => {
    const ctx = new LaneContext(req, res);
    // Koa's default until something answers; the request log reads it.
    res.statusCode = 404;
    handler(ctx, nothing).then(
      () => {
        try {
          respond(ctx);
        } catch (error) {
          failed(ctx, error);
        }
      },
      (error: unknown) => failed(ctx, error),
    );
  };
}
