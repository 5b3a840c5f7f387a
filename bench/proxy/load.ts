/*
 * A small closed-loop load generator on node:http (autocannon is not a dependency): `connections`
 * keep-alive connections, each sending its next request as soon as the previous answer has been
 * read in full, until `durationMs` has passed. Requests still in flight then are waited for and
 * counted, and the slice's time runs until the last of them ends, so a slice's req/s and the CPU
 * the proxies spent in it cover the same requests.
 */
import { Agent, request } from 'node:http';

export interface LoadOptions {
  port: number;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer | undefined;
  connections: number;
  durationMs: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  /** Milliseconds per completed request. */
  latencies: number[];
}

/** Keep-alive connections to one target, kept open across slices so a slice starts warm. */
export const createClient = (connections: number) =>
  new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });

function once(agent: Agent, options: LoadOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        path: options.path,
        method: options.method,
        headers: options.headers,
        agent,
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.end(options.body);
  });
}

/** One slice of load on `client`'s connections (a client of its own, closed at the end, when none is given). */
export async function runLoad(options: LoadOptions, client?: Agent): Promise<LoadResult> {
  const agent = client ?? createClient(options.connections);
  const headers = options.body
    ? { ...options.headers, 'content-length': String(options.body.length) }
    : options.headers;
  const run = { ...options, headers };
  const latencies: number[] = [];
  let errors = 0;
  let last = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        const ok = await once(agent, run);
        last = performance.now();
        if (ok) latencies.push(last - sent);
        else errors++;
      }
    }),
  );
  if (!client) agent.destroy();
  return { requests: latencies.length, errors, seconds: (last - started) / 1000, latencies };
}

/** The value below which `p` (0–1) of the sorted values fall. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}
