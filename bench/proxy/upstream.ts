/*
 * The bench's provider: one upstream for every measured target.
 *   GET  /bytes?size=N   N bytes (application/octet-stream, with a length)
 *   POST /sink           reads the body, answers {"received": N}
 *   POST /app/installations/:id/access_tokens   an installation token (APP mode mints here)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const block = Buffer.alloc(64 * 1024, 'portico-bench ');
const small = new Map<number, Buffer>();

/** Bodies up to 4 MiB are prebuilt; larger ones are streamed from one block. */
function bodyOf(size: number): Buffer | undefined {
  if (size > 4 * 1024 * 1024) return undefined;
  let body = small.get(size);
  if (!body) {
    body = Buffer.alloc(size, 'portico-bench ');
    small.set(size, body);
  }
  return body;
}

function handler(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
  const url = req.url ?? '/';
  if (req.method === 'POST' && url.startsWith('/app/installations/')) {
    req.resume();
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        token: 'ghs_bench_installation_token',
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    return;
  }
  if (req.method === 'POST') {
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"received":${received}}`);
    });
    return;
  }
  const size = Number(/[?&]size=(\d+)/.exec(url)?.[1] ?? 1024);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
  const body = bodyOf(size);
  if (body) return void res.end(body);
  let left = size;
  const pump = () => {
    while (left > 0) {
      const chunk = left >= block.length ? block : block.subarray(0, left);
      left -= chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

/** Starts the upstream on 127.0.0.1 (a free port). */
export async function startUpstream(): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}
