import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import type { BodySource } from './body.js';
import type { ResolvedProxyOptions } from './options.js';
import { createDeadlines, type Deadlines, type Expiring } from './deadlines.js';
import { dropConnection } from './drop-connection.js';
import type { ProviderBase } from './provider-base.js';
import { createSocketPool, type SocketPool } from './socket-pool.js';

/** One request to a provider, fully built: nothing here is read from the caller any more. */
export interface UpstreamRequest {
  base: ProviderBase;
  method: string;
  /** Base path + provider path + query, as it goes on the request line. */
  path: string;
  headers: OutgoingHttpHeaders;
  /** Piped to the provider as is (the caller's upload, a replayable copy, or nothing). */
  body: BodySource;
  /** The body when it is a stream that can fail mid-way (a caller's upload): its errors are watched. */
  failing: Readable | undefined;
}

/** Lets whoever owns the exchange stop it; `onAbort` is swapped as the exchange moves on. */
export interface Cancel {
  aborted: boolean;
  onAbort: (() => void) | undefined;
  /** The provider body being read, set with the response: told when it has been read whole (`bodyRead`). */
  body: BodyWatch | undefined;
}

/** The idle deadline of a provider body, ended early by whoever reads the body. */
export interface BodyWatch {
  bodyRead(): void;
}

/** The error a provider body is destroyed with when it sends nothing for `bodyIdleTimeoutMs`. */
export const bodyIdleCode = 'UPSTREAM_BODY_IDLE';

export type SendFailure = 'unreachable' | 'reset' | 'timeout' | 'aborted';

export type SendOutcome =
  | { ok: true; response: IncomingMessage }
  | { ok: false; reason: SendFailure; code: string; host: string; reusedSocket: boolean };

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/** What http-proxy reads from "the incoming request": we hand it this instead of the caller's. */
class Carrier {
  readonly socket = { destroyed: false };
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: OutgoingHttpHeaders,
  ) {}
  on(): this {
    return this;
  }
}

interface Target {
  protocol: string;
  host: string;
  hostname: string;
  port: number;
}

/**
 * The options http-proxy builds for `http.request`, begun from this object (its `ssl` option).
 * http-proxy copies ten fields onto it on every request — the target's TLS settings, its socket
 * path, a local address and a URL — that a Portico request never sets, so they arrive as
 * `undefined`. Node then copies every enumerable field of the options on the way to the agent
 * (`ClientRequest`, twice, the second time into an object without a prototype, which V8 keeps as
 * a hash table; Node's own `Agent.addRequest` copied them twice more until the proxy had its own
 * pool, lib/proxy/socket-pool.ts): measured with callgrind on the standalone server, those copies
 * were about a sixth of a proxied call's instructions (bench/README.md, session 10). Here those ten
 * fields are own, writable and **not enumerable**, so http-proxy's writes land on them and
 * Node's copies skip them: the request options carry port, host, hostname, method, headers,
 * agent and path (and `rejectUnauthorized` for https). One object per protocol serves every
 * request: http-proxy fills it and `http.request` copies it synchronously within one call
 * (`stream`), before any other request can touch it, and keeps no reference to it. A field Portico
 * set among the ten would be dropped by Node's copies: none is (`StreamOptions` has none).
 */
export const unsetByPortico = [
  'socketPath',
  'pfx',
  'key',
  'passphrase',
  'cert',
  'ca',
  'ciphers',
  'secureProtocol',
  'localAddress',
  'url',
] as const;

export function createOutgoingBase(): object {
  const base = {};
  for (const field of unsetByPortico) {
    Object.defineProperty(base, field, { value: undefined, writable: true, enumerable: false, configurable: false });
  }
  return base;
}

interface StreamOptions {
  target: Target;
  /** The object http-proxy fills with the outgoing request's options (createOutgoingBase). */
  ssl: object;
  agent: SocketPool;
  method: string;
  buffer: BodySource;
  selfHandleResponse: true;
  toProxy: true;
  prependPath: false;
}

/** http-proxy's `stream` web pass: `(req, res, options, head, server, callback)`; the callback gets `(error, req, res)`. */
type StreamPass = ((
  req: Carrier,
  res: Attempt,
  options: StreamOptions,
  head: undefined,
  server: unknown,
  callback: (error: NodeJS.ErrnoException, carrier: unknown, attempt: Attempt) => void,
) => void) & { name: string };

/**
 * One request to a provider. http-proxy hands it back with its events (it is the `res` we
 * pass); it settles once — a response, or the reason there is none — and can be stopped by
 * the caller going away (`cancel`) or by its deadline.
 */
class Attempt implements Expiring, BodyWatch {
  deadlinePrev: Expiring | undefined = undefined;
  deadlineNext: Expiring | undefined = undefined;
  deadlineAt = 0;
  private clientRequest: ClientRequest | undefined = undefined;
  private settled = false;
  private timedOut = false;
  private response: IncomingMessage | undefined = undefined;
  /** The provider socket's bytes read when the body's idle deadline was (re)armed. */
  private seenBytes = 0;
  /** Stops the attempt, or after the answer the provider's body (`cancel.onAbort`). */
  readonly abort = (): void => {
    if (this.response) {
      dropConnection(this.response.socket);
      this.response.destroy();
      return;
    }
    dropConnection(this.clientRequest?.socket);
    this.clientRequest?.destroy();
    this.fail(this.cancel.aborted ? 'ABORTED' : 'ETIMEDOUT');
  };

  constructor(
    private readonly host: string,
    private readonly cancel: Cancel,
    private readonly deadlines: Deadlines,
    private readonly idle: Deadlines,
    private readonly resolve: (outcome: SendOutcome) => void,
  ) {}

  /**
   * A deadline passed. Before the answer: the provider did not answer in time. After it: the
   * body's idle check — bytes came in since (or wait unread: the reader is the slow one), so
   * it is armed again; nothing came, so the body is destroyed (the caller sees a cut, a reader
   * an error); read whole already, so there is nothing to do.
   */
  expire(): void {
    const response = this.response;
    if (!response) {
      this.timedOut = true;
      this.abort();
      return;
    }
    if (response.complete || response.destroyed) return;
    const read = response.socket?.bytesRead ?? 0;
    if (read > this.seenBytes || response.readableLength > 0) {
      this.seenBytes = read;
      this.idle.set(this);
      return;
    }
    dropConnection(response.socket);
    response.destroy(
      Object.assign(new Error('the provider stopped sending its response body'), { code: bodyIdleCode }),
    );
  }

  /** The body was read whole (or given up): its idle deadline goes. */
  bodyRead(): void {
    if (this.response) this.idle.clear(this);
  }

  fail(code: string): void {
    if (this.settled) return;
    this.settled = true;
    this.deadlines.clear(this);
    const reason: SendFailure = this.cancel.aborted
      ? 'aborted'
      : this.timedOut
        ? 'timeout'
        : unreachableCodes.has(code)
          ? 'unreachable'
          : 'reset';
    this.resolve({ ok: false, reason, code, host: this.host, reusedSocket: this.clientRequest?.reusedSocket === true });
    this.clientRequest?.destroy();
  }

  /** http-proxy-3 listens for `close` on the `res` it is given; the attempt's own abort covers that. */
  on(): this {
    return this;
  }

  onProxyReq(outgoing: ClientRequest): void {
    this.clientRequest = outgoing;
    if (!this.settled) return;
    dropConnection(outgoing.socket);
    outgoing.destroy();
  }

  onResponse(response: IncomingMessage): void {
    if (this.settled) return void response.destroy();
    this.settled = true;
    this.deadlines.clear(this);
    this.response = response;
    // The same list links, now in the body's idle deadlines (no timer, no listener per call).
    this.seenBytes = response.socket?.bytesRead ?? 0;
    this.idle.set(this);
    this.cancel.body = this;
    this.resolve({ ok: true, response });
  }
}

/**
 * The transport: http-proxy-3 (the maintained rewrite of http-proxy 1.18, which calls the
 * deprecated `util._extend` and warns on Node 22+) over one keep-alive socket pool per protocol
 * (lib/proxy/socket-pool.ts, in place of Node's `Agent`).
 * Each attempt hands http-proxy a small carrier object, so headers, method and path are
 * exactly what the pipeline built, and the body is whatever stream it gives (`buffer`). The response is handed back
 * unread (`selfHandleResponse`), so the pipeline can stream it, decode it, page through it or
 * retry. Aborts are explicit: http-proxy does not stop an upstream request when the
 * client goes away, so `cancel` destroys it.
 */
export function createUpstream(options: ResolvedProxyOptions) {
  // No socket timeout: Node would re-arm it on every read and write. Idle sockets close when
  // the provider closes them; a request that meets one just closed is sent again.
  const deadlines = createDeadlines(options.timeoutMs);
  // Checked, not re-armed per chunk: a body is cut after between one and two idle periods of silence.
  const idle = createDeadlines(options.bodyIdleTimeoutMs);
  const httpPool = createSocketPool('http:', options.maxFreeSockets);
  const httpsPool = createSocketPool('https:', options.maxFreeSockets);
  const httpOutgoing = createOutgoingBase();
  const httpsOutgoing = createOutgoingBase();
  const proxy = createProxyServer({});
  // http-proxy's own pass that sends: it builds the outgoing request, pipes the body and
  // emits `proxyReq` / `proxyRes`. The other passes (X-Forwarded-*, dropping chunked DELETE
  // bodies) are not wanted, so it is called directly, with options made once per attempt.
  const passes = proxy as unknown as { webPasses: StreamPass[] };
  const found = passes.webPasses.find((pass) => pass.name === 'stream');
  if (!found) throw new Error('http-proxy-3 has no "stream" pass: an http-proxy-3 1.x is required');
  const stream: StreamPass = found;
  // http-proxy passes back the `res` it was given: our attempt.
  proxy.on('proxyReq', (request, _carrier, attempt) => (attempt as unknown as Attempt).onProxyReq(request));
  proxy.on('proxyRes', (response, _carrier, attempt) => (attempt as unknown as Attempt).onResponse(response));
  // http-proxy calls back with the `res` it was given too.
  const onError = (error: NodeJS.ErrnoException, _carrier: unknown, attempt: Attempt) =>
    attempt.fail(error.code ?? 'EUPSTREAM');

  const targets = new WeakMap<ProviderBase, Target>();
  const targetOf = (base: ProviderBase): Target => {
    let target = targets.get(base);
    if (!target) {
      target = { protocol: base.protocol, host: base.hostname, hostname: base.hostname, port: base.port };
      targets.set(base, target);
    }
    return target;
  };

  function send(request: UpstreamRequest, cancel: Cancel): Promise<SendOutcome> {
    return new Promise((resolve) => {
      const attempt = new Attempt(request.base.host, cancel, deadlines, idle, resolve);
      if (cancel.aborted) return attempt.abort();
      deadlines.set(attempt);
      cancel.onAbort = attempt.abort;
      // A body that fails (a caller's stream, an upload cut short) must not leave the request hanging.
      if (request.failing)
        request.failing.once('error', (error: NodeJS.ErrnoException) => attempt.fail(error.code ?? 'EBODY'));
      const https = request.base.protocol === 'https:';
      const options: StreamOptions = {
        target: targetOf(request.base),
        ssl: https ? httpsOutgoing : httpOutgoing,
        agent: https ? httpsPool : httpPool,
        method: request.method,
        buffer: request.body,
        // The response comes back unread; the path is exactly the one built (no joining, no prefix).
        selfHandleResponse: true,
        toProxy: true,
        prependPath: false,
      };
      stream(new Carrier(request.method, request.path, request.headers), attempt, options, undefined, proxy, onError);
    });
  }

  return {
    send,
    /** Sockets to providers: in use and idle (kept alive). */
    sockets: () => {
      const http = httpPool.counts();
      const https = httpsPool.counts();
      return { active: http.active + https.active, idle: http.idle + https.idle };
    },
    close() {
      deadlines.close();
      idle.close();
      httpPool.destroy();
      httpsPool.destroy();
    },
  };
}

export type Upstream = ReturnType<typeof createUpstream>;
