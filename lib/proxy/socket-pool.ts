import type { ClientRequest, IncomingMessage } from 'node:http';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/** What Node's `ClientRequest` hands an agent: the request's options, already copied (http-proxy-3 fills them). */
export interface PoolRequestOptions {
  host?: string | null;
  hostname?: string | null;
  port?: number | string | null;
  rejectUnauthorized?: boolean;
}

/** Node's agent's default delay before TCP keep-alive probes on an idle connection. */
const keepAliveProbeMs = 1000;
/** TLS sessions kept for resumption (Node's `https.Agent` keeps 100). */
const maxTlsSessions = 100;
/** How often idle connections are looked at: one unused through a whole period is closed (after 30 to 60 s idle). */
export const idleSweepMs = 30_000;

/** The pool's note on each of its sockets. */
interface Held {
  idle: boolean;
  /** The sweep period it went idle in. */
  idleSince: number;
  /** Left the pool (an upgrade took it, or it closed): never handed out again. */
  gone: boolean;
}

const held = Symbol('portico.pool');
/** What the pool reads of the request Node last put on a socket. */
interface LastRequest {
  shouldKeepAlive?: boolean;
  /** Its response: absent for a request destroyed before its socket was attached. */
  res?: IncomingMessage | null;
}
type PooledSocket = Socket & { [held]?: Held; _httpMessage?: LastRequest | null };

/** A `Keep-Alive: timeout=N` of at most one second: the provider closes the connection before a next call would find it (Node's agent does not keep it either). */
function closesSoon(response: IncomingMessage): boolean {
  const raw = response.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length !== 10 || name.toLowerCase() !== 'keep-alive') continue;
    const timeout = /(?:^|[\s,])timeout=(\d+)/i.exec(raw[i + 1] ?? '');
    if (timeout && Number(timeout[1]) <= 1) return true;
  }
  return false;
}

/**
 * Keep-alive connections to providers, handed to Node's `ClientRequest` as its agent (Node
 * accepts any object with `addRequest`). A request takes the most recently freed idle socket to
 * its host and port (LIFO, as Node's agent does), or a new one; when its response has been read
 * whole on a keep-alive connection, Node emits `free` on the socket and it goes back. Closed and
 * failed sockets leave the pool; at most `maxFreeSockets` idle ones are kept per host and port,
 * and one left unused for a whole `sweepMs` is closed (30 to 60 s idle by default: a provider
 * host that keeps connections open forever cannot hold the gateway's descriptors forever).
 * A TLS connection opened without verifying the provider's certificate (`rejectUnauthorized:
 * false`, which the proxy never sets) is kept apart, never handed to a request that verifies.
 *
 * Why not Node's `Agent`: its `addRequest` copies the request's options and its own into an
 * object without a prototype (a hash table for V8), computes the socket's name from them, and
 * on `free` recomputes it, looks the socket up in two lists and re-arms its keep-alive and
 * timeout. Counted with callgrind on the standalone server (Node 20, 1 KiB, API key), that is
 * about 57,000 instructions a proxied call, a fifth of it, and `addRequest` never leaves V8's
 * baseline tier (bench/README.md, session 29). Here a reuse is two map lookups and a pop.
 *
 * What it leaves out, on purpose: request queueing (no socket limit: Portico's agents had none),
 * per-request socket timeouts (the proxy's deadlines cover attempts and bodies), moving a reused
 * socket's async id to the new request (Node does it through an internal class: events of the
 * socket itself, such as its `close`, run in the async context of the call that opened it; the
 * HTTP parser's own resource, which carries a response's callbacks, is the new call's), and the
 * TLS options the proxy never sets (a CA, a client certificate, ciphers: the pool would neither
 * use them nor tell connections apart by them; `test/proxy/outgoing-options.test.ts` checks that
 * a request carries none).
 */
export function createSocketPool(protocol: 'http:' | 'https:', maxFreeSockets: number, sweepMs: number = idleSweepMs) {
  const https = protocol === 'https:';
  /** Idle sockets by host, then by port: two lookups on values the request already holds, no key built per call. */
  const idle = new Map<string, Map<number, PooledSocket[]>>();
  const sessions = new Map<string, Buffer>();
  let active = 0;
  let idleCount = 0;
  let closed = false;
  /** Sweep periods so far, and the sweep's timer while anything is idle. */
  let period = 0;
  let sweeper: NodeJS.Timeout | undefined;

  const listOf = (host: string, port: number, create: boolean): PooledSocket[] | undefined => {
    let byPort = idle.get(host);
    if (!byPort) {
      if (!create) return undefined;
      byPort = new Map();
      idle.set(host, byPort);
    }
    let list = byPort.get(port);
    if (!list && create) {
      list = [];
      byPort.set(port, list);
    }
    return list;
  };

  /** Forgets a host's and port's list once it is empty: hosts come and go (a base URL per connection), the map does not grow with them. */
  const prune = (host: string, port: number, list: PooledSocket[]) => {
    if (list.length > 0) return;
    const byPort = idle.get(host);
    byPort?.delete(port);
    if (byPort?.size === 0) idle.delete(host);
  };

  const dropIdle = (socket: PooledSocket, note: Held, host: string, port: number) => {
    note.idle = false;
    idleCount--;
    const list = listOf(host, port, false);
    if (!list) return;
    const at = list.indexOf(socket);
    if (at !== -1) list.splice(at, 1);
    prune(host, port, list);
  };

  /** Closes the connections unused since before the last period began (each list runs oldest first). */
  const sweep = () => {
    period++;
    for (const [host, byPort] of idle)
      for (const [port, list] of byPort) {
        let stale = 0;
        while (stale < list.length && (list[stale]?.[held] as Held).idleSince <= period - 2) stale++;
        for (const socket of list.splice(0, stale)) {
          const note = socket[held] as Held;
          note.idle = false;
          note.gone = true;
          idleCount--;
          socket.destroy();
        }
        prune(host, port, list);
      }
    if (idleCount === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  const release = (socket: PooledSocket, host: string, port: number) => {
    const note = socket[held];
    if (!note || note.gone || note.idle) return;
    const request = socket._httpMessage;
    active--;
    // Kept only after a whole keep-alive exchange: a request destroyed before its socket was
    // attached (Node 24 emits `free` then too) leaves no response, and its socket is closed.
    const keep =
      !closed &&
      maxFreeSockets > 0 &&
      !socket.destroyed &&
      socket.writable &&
      request?.shouldKeepAlive === true &&
      request.res != null &&
      !closesSoon(request.res);
    const list = keep ? listOf(host, port, true) : undefined;
    if (!list || list.length >= maxFreeSockets) {
      note.gone = true;
      socket.destroy();
      return;
    }
    note.idle = true;
    note.idleSince = period;
    idleCount++;
    socket._httpMessage = null;
    socket.unref();
    list.push(socket);
    if (!sweeper) {
      sweeper = setInterval(sweep, sweepMs);
      sweeper.unref();
    }
  };

  const leave = (socket: PooledSocket, host: string, port: number) => {
    const note = socket[held];
    if (!note || note.gone) return;
    note.gone = true;
    if (note.idle) dropIdle(socket, note, host, port);
    else active--;
  };

  /** A new connection to `name` (the host name), kept under `host` (the name, marked when unverified). */
  const open = (name: string, host: string, port: number, options: PoolRequestOptions): PooledSocket => {
    let socket: PooledSocket;
    if (https) {
      const key = `${host}:${port}`;
      const tls: ConnectionOptions = {
        host: name,
        port,
        // SNI names a host, never an address.
        servername: isIP(name) ? '' : name,
        rejectUnauthorized: options.rejectUnauthorized !== false,
        session: sessions.get(key),
      };
      socket = tlsConnect(tls);
      socket.on('session', (session: Buffer) => {
        sessions.delete(key);
        sessions.set(key, session);
        if (sessions.size > maxTlsSessions) sessions.delete(sessions.keys().next().value as string);
      });
      // A connection that failed may have failed on its session: the next one starts afresh.
      socket.once('close', (hadError: boolean) => {
        if (hadError) sessions.delete(key);
      });
      socket.setNoDelay(true);
      socket.setKeepAlive(true, keepAliveProbeMs);
    } else {
      socket = netConnect({
        host: name,
        port,
        noDelay: true,
        keepAlive: true,
        keepAliveInitialDelay: keepAliveProbeMs,
      });
    }
    socket[held] = { idle: false, idleSince: 0, gone: false };
    socket.on('free', () => release(socket, host, port));
    socket.on('close', () => leave(socket, host, port));
    // An upgraded connection (not one the proxy makes) is no longer the pool's.
    socket.on('agentRemove', () => leave(socket, host, port));
    // Errors while in use reach the request through Node's own listener; an idle socket's just close it.
    socket.on('error', () => {});
    return socket;
  };

  return {
    protocol,
    defaultPort: https ? 443 : 80,
    /** Read by `ClientRequest`: requests on this agent ask for keep-alive. */
    keepAlive: true,
    maxSockets: Infinity,
    maxFreeSockets,
    /** Read by `ClientRequest` for an agent-wide socket timeout: none. */
    options: {},
    addRequest(request: ClientRequest, options: PoolRequestOptions): void {
      const name = options.hostname ?? options.host ?? 'localhost';
      const host = https && options.rejectUnauthorized === false ? `${name}\u0000unverified` : name;
      const port = Number(options.port) || (https ? 443 : 80);
      const list = listOf(host, port, false);
      let socket: PooledSocket | undefined;
      while (list && list.length > 0) {
        const candidate = list.pop() as PooledSocket;
        const note = candidate[held] as Held;
        note.idle = false;
        idleCount--;
        if (!candidate.destroyed && candidate.writable) {
          socket = candidate;
          break;
        }
        note.gone = true;
      }
      if (list) prune(host, port, list);
      if (socket) {
        socket.ref();
        request.reusedSocket = true;
      } else {
        socket = open(name, host, port, options);
      }
      active++;
      request.onSocket(socket);
    },
    /** Sockets in use and idle. */
    counts: () => ({ active, idle: idleCount }),
    /** Closes every idle socket; sockets in use close when their request ends. */
    destroy(): void {
      closed = true;
      if (sweeper) clearInterval(sweeper);
      sweeper = undefined;
      for (const byPort of idle.values())
        for (const list of byPort.values())
          for (const socket of list) {
            (socket[held] as Held).gone = true;
            socket.destroy();
          }
      idle.clear();
      idleCount = 0;
    },
  };
}

export type SocketPool = ReturnType<typeof createSocketPool>;
