/**
 * Memory under bogus provider webhooks (issue 14): N concurrent posts of SIZE MiB each to
 * `POST /webhook/dev/gh`, while the gateway process's RSS is sampled every 20 ms. Three kinds:
 * a well-formed but wrong signature (the worst case: bodies are read, under the in-flight byte
 * budget, and refused after hashing), no signature header, and an unknown integration (both
 * refused before any body byte is read). Prints the statuses and the RSS growth over the
 * baseline for each, and PASS/FAIL against the target (< 100 MB growth).
 *
 *   node --expose-gc --import tsx bench/inbound-webhooks.ts
 *   … bench/inbound-webhooks.ts --posts 40 --size 24
 *
 * The senders run in the same process but send one shared 64 KiB chunk over and over, so the
 * growth measured is the gateway's. Everything listens on 127.0.0.1.
 */
import { generateKeyPairSync } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import { benchArgs } from './args.js';

const args = benchArgs('inbound-webhooks', {
  posts: {
    type: 'string',
    default: '20',
    help: 'concurrent webhook posts of each kind (wrong signature, none, unknown integration)',
  },
  size: { type: 'string', default: '20', help: 'body size of each post, in MiB' },
});
const POSTS = Number(args.posts);
const SIZE = Number(args.size) * 1024 * 1024;
const MB = 1_000_000;
const chunk = Buffer.alloc(64 * 1024, 'x');

const storage = createMemoryStorage();
const gateway = await createGateway({
  environments: [{ name: 'dev', secretKey: 'sk_bench_inbound_0123456789' }],
  storage,
  encryptionKeys: Buffer.alloc(32, 7).toString('base64'),
  baseUrl: 'http://127.0.0.1',
  logger: createLogger({ level: 'silent' }),
});
const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
await gateway.integrations.create('dev', {
  unique_key: 'gh',
  provider: 'github-app',
  credentials: {
    type: 'APP',
    app_id: '1',
    app_link: 'https://github.com/apps/bench',
    private_key: privateKey,
    webhook_secret: 'bench-secret',
  },
});
const server = (await import('node:http')).createServer(gateway.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

/** One post of SIZE bytes written chunk by chunk with backpressure; resolves with the status (0: connection dropped). */
function post(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    let status = 0;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(SIZE), ...headers },
      },
      (res) => {
        status = res.statusCode ?? 0;
        res.resume();
        res.on('end', () => {
          req.destroy();
          resolve(status);
        });
      },
    );
    req.on('error', () => resolve(status));
    let sent = 0;
    const write = () => {
      while (sent < SIZE && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      if (!req.destroyed) req.end();
    };
    write();
  });
}

const rss = () => process.memoryUsage().rss;
async function measure(label: string, path: string, headers: Record<string, string>) {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baseline = rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 20);
  const started = performance.now();
  const statuses = await Promise.all(Array.from({ length: POSTS }, () => post(path, headers)));
  clearInterval(sampler);
  peak = Math.max(peak, rss());
  const counts = Object.entries(
    statuses.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {}),
  );
  const growth = (peak - baseline) / MB;
  console.log(
    `${label.padEnd(36)} statuses ${counts
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')
      .padEnd(
        18,
      )} baseline ${(baseline / MB).toFixed(0)} MB  peak ${(peak / MB).toFixed(0)} MB  growth ${growth.toFixed(1)} MB  ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return growth;
}

console.log(`${POSTS} concurrent posts of ${SIZE / 1024 / 1024} MiB each (node ${process.version})`);
const growths = [
  await measure('well-formed but wrong signature', '/webhook/dev/gh', {
    'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
  }),
  await measure('no signature header', '/webhook/dev/gh', {}),
  await measure('unknown integration', '/webhook/dev/nope', { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }),
];
const worst = Math.max(...growths);
console.log(`${worst < 100 ? 'PASS' : 'FAIL'}: largest RSS growth ${worst.toFixed(1)} MB (target < 100 MB)`);
server.close();
server.closeAllConnections();
await gateway.close();
await storage.close();
