/**
 * What connecting an end user costs the gateway: creating a connect session, and one whole
 * OAuth round (connect link → provider → callback → token exchange → stored connection)
 * against an instant local provider, so the figures are the gateway's own work.
 * Run: node --import tsx bench/connect.ts
 * (the Redis rows need Redis at REDIS_URL, default redis://127.0.0.1:6379; skipped without it)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStorage, createRedisStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import type { Storage } from '../lib/storage/index.js';

const secretKey = 'sk_bench_0123456789abcdef';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function serve(handler: RequestListener) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

// An instant provider: the consent page approves at once, the token endpoint answers at once.
const provider = await serve((req, res) => {
  const url = new URL(req.url ?? '/', 'http://p');
  if (url.pathname === '/authorize') {
    const back = new URL(url.searchParams.get('redirect_uri') ?? '');
    back.searchParams.set('code', randomUUID());
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    res.statusCode = 302;
    res.setHeader('location', back.toString());
    return res.end();
  }
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        access_token: randomUUID(),
        refresh_token: randomUUID(),
        expires_in: 3600,
        token_type: 'Bearer',
      }),
    );
  });
});

async function follow(start: string): Promise<number> {
  let url = start;
  for (let i = 0; i < 10; i++) {
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url).toString();
      continue;
    }
    await res.text();
    return res.status;
  }
  throw new Error('redirect loop');
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;

async function measure(label: string, runs: number, concurrency: number, once: () => Promise<void>) {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < runs) {
        const t0 = performance.now();
        await once();
        times.push(performance.now() - t0);
      }
    }),
  );
  const total = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(46)} ${String(runs).padStart(5)} runs  c=${String(concurrency).padStart(2)}  p50 ${percentile(times, 0.5).toFixed(2).padStart(6)} ms  p95 ${percentile(times, 0.95).toFixed(2).padStart(6)} ms  ${(runs / total).toFixed(0).padStart(5)}/s`,
  );
}

async function bench(label: string, storage: Storage) {
  let handler: RequestListener = (_q, r) => r.end();
  const server = await serve((req, res) => handler(req, res));
  const gateway = await createGateway({
    environments: [{ name: 'dev', secretKey }],
    storage,
    encryptionKeys: randomBytes(32).toString('base64'),
    baseUrl: server.url,
    logger: createLogger({ level: 'silent' }),
    providers: [
      {
        name: 'bench-oauth',
        display_name: 'Bench',
        logo_url: 'https://cdn.portico.dev/providers/bench-oauth.svg',
        categories: ['test'],
        docs: 'https://example.com',
        auth_mode: 'OAUTH2',
        authorization_url: `${provider.url}/authorize`,
        token_url: `${provider.url}/token`,
        pkce: true,
        proxy: { base_url: provider.url },
      },
    ],
  });
  handler = gateway.callback();
  const call = (path: string, body: unknown) =>
    fetch(server.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await call('/integrations', {
    unique_key: 'bench',
    provider: 'bench-oauth',
    credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: 'bench-secret-123' },
  });
  const newLink = async () =>
    (
      (await (
        await call('/connect/sessions', { end_user: { id: randomUUID() }, allowed_integrations: ['bench'] })
      ).json()) as { data: { connect_link: string } }
    ).data.connect_link;

  await measure(`${label}: POST /connect/sessions`, 500, 1, async () => {
    await newLink();
  });
  await measure(`${label}: POST /connect/sessions`, 2000, 20, async () => {
    await newLink();
  });
  const flow = async () => {
    if ((await follow(await newLink())) !== 200) throw new Error('flow failed');
  };
  await measure(`${label}: session + full OAuth round`, 300, 1, flow);
  await measure(`${label}: session + full OAuth round`, 1000, 20, flow);
  await server.close();
  await gateway.close();
  await storage.close();
}

await bench('memory', createMemoryStorage());
const redis = createRedisStorage({ url: redisUrl, prefix: `portico-bench:${randomUUID()}:` });
const reachable = await Promise.race([
  redis
    .keyv('probe')
    .set('x', 1)
    .then(
      () => true,
      () => false,
    ),
  new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
]);
if (reachable) await bench('redis', redis);
else {
  console.log('redis: not reachable, skipped');
  await redis.close();
}
await provider.close();
