import type { IncomingMessage } from 'node:http';
import { fail, GatewayError } from '../errors.js';
import { defaultBodyLimit } from '../http/body.js';
import type { HttpContext } from '../http/context.js';
import type { Logger, UpstreamFields } from '../http/logger.js';
import { toRouter, type HttpMethod, type RouteSpec } from '../http/route-spec.js';
import type { GatewayState } from '../http/state.js';
import { incomingBody, readAll, type RequestBody } from './body.js';
import { readControl } from './control.js';
import { callEvent, proxyChannels, type ProxyCallEvent } from './diagnostics.js';
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
export const forwardedMethods: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const prefix = '/proxy';
const handledMethods = new Set([...forwardedMethods, 'HEAD']);

/** The raw provider path and query of `/proxy/{provider_path}?{query}`, exactly as the caller sent them. */
function providerTarget(url: string): { path: string; query: string } {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  // The router matched a normalised path; the raw one must say the same (e.g. no "\proxy").
  if (!path.startsWith(`${prefix}/`))
    fail('unsafe_proxy_target', 'Unsafe provider path: it must follow /proxy/ literally.');
  return { path: path.slice(prefix.length), query: mark === -1 ? '' : url.slice(mark + 1) };
}

async function pageBody(body: RequestBody): Promise<Buffer | undefined> {
  if (body.kind === 'bytes') return body.bytes;
  if (body.kind === 'stream') return readAll(body.stream, defaultBodyLimit);
  return undefined;
}

/** The call's start event (only built when someone subscribes), published at once. */
function startCall(ctx: { state: GatewayState }, call: PreparedCall): ProxyCallEvent {
  const event = callEvent(call, ctx.state.requestId, performance.now());
  if (proxyChannels.callStart.hasSubscribers) proxyChannels.callStart.publish(event);
  return event;
}

function callEnded(event: ProxyCallEvent, status: number): void {
  event.status = status;
  event.durationMs = performance.now() - event.startedAt;
  if (proxyChannels.callEnd.hasSubscribers) proxyChannels.callEnd.publish(event);
}

/** A proxied call's fields for its request line (`ctx.state.upstream`), and when it was sent. */
export interface UpstreamNote extends UpstreamFields {
  started: number;
}

const upstreamNote = (call: PreparedCall): UpstreamNote => ({
  integration: call.target.connection.provider_config_key,
  connection: call.target.connection.connection_id,
  provider_host: call.base.host,
  provider_status: null,
  upstream_ms: null,
  started: performance.now(),
});

const sinceMs = (started: number) => Math.round((performance.now() - started) * 100) / 100;

/** `{prefix}/proxy/{provider_path}` for every method. */
export function createProxyRoutes(deps: ProxyRouteDeps) {
  const { prepare, exchange, options, logger } = deps;
  // The note exists for the request log's line: with that line off, no object and no clock per call.
  const noting = logger.enabled?.('info') ?? true;

  type Ctx = HttpContext;

  const paginated = async (ctx: Ctx, call: PreparedCall, cancel: Cancel) => {
    const upstream = noting ? upstreamNote(call) : undefined;
    ctx.state.upstream = upstream;
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
    // Every page answered: the status the caller got is the providers' last one.
    if (upstream) {
      upstream.provider_status = ctx.res.statusCode;
      upstream.upstream_ms = sinceMs(upstream.started);
    }
  };

  /** A failure: the error handler's to answer, unless the caller has gone (left mid-upload, say): then there is no one to answer, and nothing worth an error log. */
  const settle = (ctx: Ctx, cancel: Cancel, error: unknown): void => {
    const gone = cancel.aborted || ctx.req.destroyed || ctx.res.destroyed;
    if (!gone || GatewayError.is(error)) throw error;
    ctx.respond = false;
  };

  /** Streams the provider's answer; none means the caller went away and there is no one to answer. */
  const answer = (ctx: Ctx, call: PreparedCall, cancel: Cancel, response: IncomingMessage | undefined): void => {
    if (!response) {
      ctx.respond = false;
      return;
    }
    // No `ctx.status =`: writeHead sets the status, and Koa's `ctx.status` (the request log) reads it back.
    let streaming: Promise<void>;
    try {
      streaming = sendStream(ctx.res, response, call.decompress, call.maxDecodedBytes, cancel, ctx.state.requestId);
    } catch (error) {
      // Headers the caller cannot be sent throw before anything is written: the error handler answers.
      response.destroy();
      return settle(ctx, cancel, error);
    }
    ctx.respond = false;
    // The body streams on after this returns: nothing waits for it (the request log listens for
    // the end, lib/http/edge.ts). Measured: releasing the call here, rather than awaiting the
    // end, saves a chain of promise hops per call. The promise itself stays (and its `close`
    // listener): without them V8 pretenured per-call objects and Portico's CPU per call went
    // from 1.05x to 1.36x the bare forwarder's (docs/bench.md, sessions 3 and 4).
    void streaming;
  };

  const send = (ctx: Ctx, call: PreparedCall, cancel: Cancel, body: RequestBody): Promise<void> => {
    const page = { path: call.path, query: call.query, body: undefined };
    if (!noting) {
      return exchange(call, page, body, cancel).then(
        (response) => answer(ctx, call, cancel, response),
        (error: unknown) => settle(ctx, cancel, error),
      );
    }
    const upstream = upstreamNote(call);
    ctx.state.upstream = upstream;
    return exchange(call, page, body, cancel).then(
      (response) => {
        upstream.provider_status = response?.statusCode ?? null;
        upstream.upstream_ms = sinceMs(upstream.started);
        answer(ctx, call, cancel, response);
      },
      (error: unknown) => {
        upstream.upstream_ms = sinceMs(upstream.started);
        settle(ctx, cancel, error);
      },
    );
  };

  /** One call, start to answer. Promise chains rather than async functions: the hot path makes two promises, not four. */
  const run = (ctx: Ctx, call: PreparedCall): Promise<void> => {
    const { req, res } = ctx;
    const cancel: Cancel = { aborted: false, onAbort: undefined, body: undefined };
    const event =
      proxyChannels.callStart.hasSubscribers || proxyChannels.callEnd.hasSubscribers ? startCall(ctx, call) : undefined;
    // http-proxy leaves the provider request running when the caller goes away; this stops it
    // (and, once the answer streams, the provider's body).
    res.on('close', () => {
      if (event) callEnded(event, res.headersSent ? res.statusCode : 0);
      if (res.writableFinished) return;
      cancel.aborted = true;
      cancel.onAbort?.();
    });
    if (call.paginate) return paginated(ctx, call, cancel).catch((error: unknown) => settle(ctx, cancel, error));
    let incoming: RequestBody | Promise<RequestBody>;
    try {
      incoming = incomingBody(req, call.mayReplay ? options.replayableBodyBytes : 0);
    } catch (error) {
      settle(ctx, cancel, error);
      return Promise.resolve();
    }
    if (!(incoming instanceof Promise)) return send(ctx, call, cancel, incoming);
    return incoming.then(
      (body) => send(ctx, call, cancel, body),
      (error: unknown) => settle(ctx, cancel, error),
    );
  };

  /** Forwards one authenticated call (`ctx.state.environment` is set). */
  const forward = (ctx: Ctx): Promise<void> => {
    const { req } = ctx;
    const control = readControl(req.headers, options.maxPages);
    const { path, query } = providerTarget(req.url ?? '');
    const prepared = prepare({
      environment: ctx.state.environment.name,
      control,
      method: req.method ?? 'GET',
      path,
      query,
      headers: req.headers,
    });
    return prepared instanceof Promise ? prepared.then((call) => run(ctx, call)) : run(ctx, prepared);
  };

  const spec: RouteSpec = {
    method: forwardedMethods,
    path: `${prefix}/{*path}`,
    auth: 'secret_key',
    tag: 'proxy',
    headers: ['Provider-Config-Key', 'Connection-Id'],
    summary:
      "Forward to the provider API under its base URL with the connection's credentials (spec 4.4); status, headers and body are the provider's. Optional headers: Retries (0-10), Paginate (true), Paginate-Max-Items, Paginate-Max-Pages, Decompress (true|false)",
    errors: [400, 404, 408, 413, 424, 429, 502, 504],
    handler: forward,
  };
  return {
    /** The route, for the route table and the OpenAPI document. */
    specs: [spec],
    /** The same route as a router (the gateway dispatches `/proxy/…` calls before any router). */
    router: toRouter([spec]),
    /** True for a `/proxy/…` call the proxy forwards (`url` as on the request line): the gateway sends it here before any route table. */
    handles: (method: string, url: string) => url.startsWith(`${prefix}/`) && handledMethods.has(method),
    forward,
  };
}
