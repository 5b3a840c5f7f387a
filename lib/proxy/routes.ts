import Router from '@koa/router';
import type { Middleware } from 'koa';
import { fail, GatewayError } from '../errors.js';
import { defaultBodyLimit } from '../http/body.js';
import type { Logger } from '../http/logger.js';
import type { GatewayState } from '../http/state.js';
import { incomingBody, readAll, type RequestBody } from './body.js';
import { readControl } from './control.js';
import type { Exchange } from './exchange.js';
import type { ResolvedProxyOptions } from './options.js';
import { walkPages } from './pages.js';
import type { Prepare, PreparedCall } from './prepare.js';
import { sendPages, sendStream } from './respond.js';
import type { Cancel } from './upstream.js';

export interface ProxyRouteDeps {
  prepare: Prepare;
  exchange: Exchange;
  options: ResolvedProxyOptions;
  logger: Logger;
}

/** Methods the proxy forwards (HEAD with GET). */
export const forwardedMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const prefix = '/proxy';
const handledMethods = new Set([...forwardedMethods, 'HEAD']);

/** The raw provider path and query of `/proxy/{provider_path}?{query}`, exactly as the caller sent them. */
function providerTarget(url: string): { path: string; query: string } {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  // The router matched a normalised path; the raw one must say the same (e.g. no "\proxy").
  if (!path.startsWith(`${prefix}/`)) fail('unsafe_proxy_target', 'Unsafe provider path: it must follow /proxy/ literally.');
  return { path: path.slice(prefix.length), query: mark === -1 ? '' : url.slice(mark + 1) };
}

async function pageBody(body: RequestBody): Promise<Buffer | undefined> {
  if (body.kind === 'bytes') return body.bytes;
  if (body.kind === 'stream') return readAll(body.stream, defaultBodyLimit);
  return undefined;
}

/** `{prefix}/proxy/{provider_path}` for every method (spec 4.4). */
export function createProxyRoutes(deps: ProxyRouteDeps) {
  const { prepare, exchange, options, logger } = deps;

  type Ctx = Parameters<Middleware<GatewayState>>[0];

  const paginated = async (ctx: Ctx, call: PreparedCall, cancel: Cancel) => {
    const body = await pageBody(await incomingBody(ctx.req, defaultBodyLimit));
    // Until the first byte goes out, a failure goes to the error handler like any other.
    ctx.respond = false;
    try {
      await sendPages(ctx.res, walkPages(exchange, options, call, body, cancel), cancel, logger, ctx.state.requestId);
    } catch (error) {
      ctx.respond = true;
      throw error;
    }
    ctx.status = ctx.res.statusCode;
  };

  const run = async (ctx: Ctx, call: PreparedCall) => {
    const { req, res } = ctx;
    const cancel: Cancel = { aborted: false, onAbort: undefined };
    // http-proxy leaves the provider request running when the caller goes away; this stops it
    // (and, once the answer streams, the provider's body).
    res.on('close', () => {
      if (res.writableFinished) return;
      cancel.aborted = true;
      cancel.onAbort?.();
    });
    try {
      if (call.paginate) return await paginated(ctx, call, cancel);
      const incoming = incomingBody(req, call.mayReplay ? options.replayableBodyBytes : 0);
      const body = incoming instanceof Promise ? await incoming : incoming;
      const response = await exchange(call, { path: call.path, query: call.query, body: undefined }, body, cancel);
      // No response: the caller went away, there is no one to answer.
      if (!response) {
        ctx.respond = false;
        return;
      }
      // No `ctx.status =`: writeHead sets the status, and Koa's `ctx.status` (the request log) reads it back.
      let streaming: Promise<void>;
      try {
        streaming = sendStream(res, response, call.decompress, cancel, ctx.state.requestId);
      } catch (error) {
        // Headers the caller cannot be sent throw before anything is written: the error handler answers.
        response.destroy();
        throw error;
      }
      ctx.respond = false;
      // The body streams on after this returns: nothing waits for it (the request log listens for
      // the end, lib/http/edge.ts). Measured: releasing the call here, rather than awaiting the
      // end, saves a chain of promise hops per call.
      void streaming;
    } catch (error) {
      // A caller who left mid-upload: nothing to answer, nothing worth an error log.
      const gone = cancel.aborted || req.destroyed || res.destroyed;
      if (!gone || GatewayError.is(error)) throw error;
      ctx.respond = false;
    }
  };

  /** Forwards one authenticated call (`ctx.state.environment` is set). */
  const forward = (ctx: Ctx): Promise<void> => {
    const { req } = ctx;
    const control = readControl(req.headers, options.maxPages);
    const { path, query } = providerTarget(req.url ?? '');
    const prepared = prepare({ environment: ctx.state.environment.name, control, method: ctx.method, path, query, headers: req.headers });
    return prepared instanceof Promise ? prepared.then((call) => run(ctx, call)) : run(ctx, prepared);
  };

  const router = new Router<GatewayState>();
  router.register(`${prefix}/{*path}`, forwardedMethods, forward);
  return {
    /** The route, for the route table and the OpenAPI check. */
    router,
    /** True for a `/proxy/…` call the proxy forwards: the gateway sends it here before any route table. */
    handles: (method: string, path: string) => path.startsWith(`${prefix}/`) && handledMethods.has(method),
    forward,
  };
}
