import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import httpProxy from 'http-proxy';
import type { ResolvedProxyOptions } from './options.js';
import { createDeadlines } from './deadlines.js';
import { dropConnection } from './drop-connection.js';
import type { ProviderBase } from './provider-base.js';

/** One request to a provider, fully built: nothing here is read from the caller any more. */
export interface UpstreamRequest {
  base: ProviderBase;
  method: string;
  /** Base path + provider path + query, as it goes on the request line. */
  path: string;
  headers: OutgoingHttpHeaders;
  /** Piped to the provider as is (the caller's request, a replayable copy, or an empty stream). */
  body: Readable;
}

/** Lets whoever owns the exchange stop it; `onAbort` is swapped as the exchange moves on. */
export interface Cancel {
  aborted: boolean;
  onAbort: (() => void) | undefined;
}

export type SendFailure = 'unreachable' | 'reset' | 'timeout' | 'aborted';

export type SendOutcome =
  | { ok: true; response: IncomingMessage }
  | { ok: false; reason: SendFailure; code: string; host: string; reusedSocket: boolean };

const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** What http-proxy reads from "the incoming request": we hand it this instead of the caller's. */
interface Carrier {
  method: string;
  url: string;
  headers: OutgoingHttpHeaders;
  socket: { destroyed: boolean };
  on(): Carrier;
}

/** What http-proxy hands back with its events: one per attempt. */
interface Exchange {
  onProxyReq(request: ClientRequest): void;
  onResponse(response: IncomingMessage): void;
}

interface Target { protocol: string; host: string; hostname: string; port: number }

/**
 * The transport: http-proxy over one keep-alive agent per protocol. Each attempt hands
 * http-proxy a small carrier object, so headers, method and path are exactly what the pipeline
 * built, and the body is whatever stream it gives (`buffer`). The response is handed back
 * unread (`selfHandleResponse`), so the pipeline can stream it, decode it, page through it or
 * retry. Aborts are explicit: http-proxy 1.18 does not stop an upstream request when the
 * client goes away, so `cancel` destroys it.
 */
export function createUpstream(options: ResolvedProxyOptions) {
  // No socket timeout on the agent: Node would re-arm it on every read and write. Idle sockets
  // close when the provider closes them; a request that meets one just closed is sent again.
  const agentOptions = { keepAlive: true, maxFreeSockets: options.maxFreeSockets, scheduling: 'lifo' as const };
  const deadlines = createDeadlines(options.timeoutMs);
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);
  const proxy = httpProxy.createProxyServer({ selfHandleResponse: true, toProxy: true, prependPath: false });
  // Only the pass that sends: the others add X-Forwarded-* or drop DELETE bodies sent chunked.
  const passes = proxy as unknown as { webPasses: { name: string }[] };
  passes.webPasses = passes.webPasses.filter((pass) => pass.name === 'stream');
  // http-proxy passes back the `res` it was given: our per-attempt exchange.
  proxy.on('proxyReq', (request, _carrier, exchange) => (exchange as unknown as Exchange).onProxyReq(request));
  proxy.on('proxyRes', (response, _carrier, exchange) => (exchange as unknown as Exchange).onResponse(response));

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
      const host = request.base.host;
      let clientRequest: ClientRequest | undefined;
      let settled = false;
      let timedOut = false;
      const fail = (code: string) => {
        if (settled) return;
        settled = true;
        deadlines.clear(expire);
        const reason: SendFailure = cancel.aborted ? 'aborted' : timedOut ? 'timeout' : unreachableCodes.has(code) ? 'unreachable' : 'reset';
        resolve({ ok: false, reason, code, host, reusedSocket: clientRequest?.reusedSocket === true });
        clientRequest?.destroy();
      };
      const stop = () => {
        dropConnection(clientRequest?.socket);
        clientRequest?.destroy();
        fail(cancel.aborted ? 'ABORTED' : 'ETIMEDOUT');
      };
      const expire = () => {
        timedOut = true;
        stop();
      };
      if (cancel.aborted) return stop();
      deadlines.set(expire);
      cancel.onAbort = stop;
      const exchange: Exchange = {
        onProxyReq(outgoing) {
          clientRequest = outgoing;
          if (!settled) return;
          dropConnection(outgoing.socket);
          outgoing.destroy();
        },
        onResponse(response) {
          if (settled) return void response.destroy();
          settled = true;
          deadlines.clear(expire);
          cancel.onAbort = () => {
            dropConnection(response.socket);
            response.destroy();
          };
          resolve({ ok: true, response });
        },
      };
      // A body that fails (a caller's stream, an upload cut short) must not leave the request hanging.
      request.body.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'EBODY'));
      const carrier: Carrier = { method: request.method, url: request.path, headers: request.headers, socket: { destroyed: false }, on: () => carrier };
      proxy.web(carrier as never, exchange as never, {
        target: targetOf(request.base),
        agent: request.base.protocol === 'https:' ? httpsAgent : httpAgent,
        method: request.method,
        buffer: request.body,
      }, (error: NodeJS.ErrnoException) => fail(error.code ?? 'EUPSTREAM'));
    });
  }

  const count = (sockets: NodeJS.ReadOnlyDict<unknown[]>) => Object.values(sockets).reduce((n, list) => n + (list?.length ?? 0), 0);

  return {
    send,
    /** Sockets to providers: in use and idle (kept alive). */
    sockets: () => ({
      active: count(httpAgent.sockets) + count(httpsAgent.sockets),
      idle: count(httpAgent.freeSockets) + count(httpsAgent.freeSockets),
    }),
    close() {
      deadlines.close();
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

export type Upstream = ReturnType<typeof createUpstream>;
