/**
 * What credential resolution costs: the hot path (a cached token, no I/O), one shared refresh
 * for 200 concurrent requests (memory, and 3 instances on Redis), and one installation-token mint.
 * Run: node --import tsx bench/credentials.ts
 * (needs Redis at REDIS_URL, default redis://127.0.0.1:6379, for the 3-instance row)
 */
import { createClient } from '@keyv/redis';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStorage, createRedisStorage } from '../adapters/storage/index.js';
import { createCredentialResolver, type CredentialTarget } from '../lib/credentials/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import type { Storage } from '../lib/storage/index.js';

const logger = createLogger({ level: 'silent' });
const encryptionKeys = randomBytes(32).toString('base64');

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

let tokenCalls = 0;
const tokens = await serve((req, res) => {
  tokenCalls++;
  res.setHeader('content-type', 'application/json');
  if (req.url?.startsWith('/app/')) {
    res.statusCode = 201;
    res.end(JSON.stringify({ token: `ghs_${tokenCalls}`, expires_at: new Date(Date.now() + 3600_000).toISOString() }));
  } else {
    res.end(JSON.stringify({ access_token: `at_${tokenCalls}`, expires_in: 3600 }));
  }
});

const providers = [
  {
    name: 'bench-oauth',
    display_name: 'b',
    logo_url: 'https://x.dev/l.svg',
    categories: ['b'],
    auth_mode: 'OAUTH2',
    docs: 'https://x.dev',
    authorization_url: 'https://x.dev/a',
    token_url: `${tokens.url}/token`,
    proxy: { base_url: 'https://api.x.dev' },
  },
  {
    name: 'bench-app',
    display_name: 'b',
    logo_url: 'https://x.dev/l.svg',
    categories: ['b'],
    auth_mode: 'APP',
    docs: 'https://x.dev',
    proxy: { base_url: tokens.url },
  },
];

async function gatewayOn(storage: Storage) {
  return createGateway({
    environments: [{ name: 'dev', secretKey: 'sk_bench_0123456789abcdef' }],
    storage,
    encryptionKeys,
    baseUrl: 'http://127.0.0.1',
    providers,
    logger,
  });
}

type Gw = Awaited<ReturnType<typeof gatewayOn>>;
const resolverOf = (gw: Gw) =>
  createCredentialResolver({ connections: gw.connections, coordinator: gw.storage.coordinator, logger });
async function targetOf(gw: Gw, key: string, id: string): Promise<CredentialTarget> {
  const connection = await gw.connections.require('dev', key, id);
  return {
    environment: 'dev',
    connection,
    integration: await gw.integrations.require('dev', key),
    provider: gw.catalog.get(connection.provider)!,
  };
}
async function oauthConnection(gw: Gw, id: string, expiresInMs: number) {
  if (!(await gw.integrations.get('dev', 'crm'))) {
    await gw.integrations.create('dev', {
      unique_key: 'crm',
      provider: 'bench-oauth',
      credentials: { type: 'OAUTH2', client_id: 'c', client_secret: 's', scopes: [] },
    });
  }
  await gw.connections.upsert(
    'dev',
    {
      provider_config_key: 'crm',
      connection_id: id,
      credentials: {
        type: 'OAUTH2',
        access_token: 'at_0',
        refresh_token: 'rt',
        expires_at: new Date(Date.now() + expiresInMs).toISOString(),
      },
    },
    'import',
  );
}

const rows: string[] = [];
const memory = createMemoryStorage();
const gw = await gatewayOn(memory);

// 1. Hot path: a token with an hour left.
await oauthConnection(gw, 'hot', 3600_000);
const resolver = resolverOf(gw);
const hot = await targetOf(gw, 'crm', 'hot');
for (let i = 0; i < 20_000; i++) await resolver.resolve(hot);
const n = 500_000;
let started = performance.now();
for (let i = 0; i < n; i++) await resolver.resolve(hot);
rows.push(
  `resolve, OAUTH2 token still fresh:        ${(((performance.now() - started) * 1e6) / n).toFixed(0)} ns/call (${n} calls)`,
);

// 2. 200 concurrent requests on an expired token, one process.
await oauthConnection(gw, 'cold', -1000);
tokenCalls = 0;
const cold = await targetOf(gw, 'crm', 'cold');
started = performance.now();
await Promise.all(Array.from({ length: 200 }, () => resolver.resolve(cold)));
rows.push(
  `200 concurrent, expired, 1 process:       ${(performance.now() - started).toFixed(1)} ms, ${tokenCalls} token call(s)`,
);

// 3. The same across 3 instances on one Redis.
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `portico-bench:${randomBytes(4).toString('hex')}:`;
const stores = [0, 1, 2].map(() => createRedisStorage({ url: redisUrl, prefix }));
const gws = await Promise.all(stores.map(gatewayOn));
await oauthConnection(gws[0]!, 'shared', -1000);
const setups = await Promise.all(
  gws.map(async (g) => ({ resolver: resolverOf(g), target: await targetOf(g, 'crm', 'shared') })),
);
tokenCalls = 0;
started = performance.now();
await Promise.all(Array.from({ length: 200 }, (_, i) => setups[i % 3]!.resolver.resolve(setups[i % 3]!.target)));
rows.push(
  `200 concurrent, expired, 3 Redis instances: ${(performance.now() - started).toFixed(1)} ms, ${tokenCalls} token call(s)`,
);
await Promise.all(gws.map((g) => g.close()));
await Promise.all(stores.map((s) => s.close()));
const raw = createClient({ url: redisUrl });
await raw.connect();
for await (const keys of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
  if (keys.length > 0) await raw.unlink(keys);
await raw.close();

// 4. Installation tokens: JWT signing plus the exchange.
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
});
await gw.integrations.create('dev', {
  unique_key: 'app',
  provider: 'bench-app',
  credentials: { type: 'APP', app_id: '1', app_link: 'https://x.dev/apps/b', private_key: privateKey },
});
const mints = 50;
started = performance.now();
for (let i = 0; i < mints; i++) {
  await gw.connections.upsert(
    'dev',
    {
      provider_config_key: 'app',
      connection_id: `org-${i}`,
      credentials: { type: 'APP', installation_id: String(i + 1) },
    },
    'import',
  );
  await resolver.resolve(await targetOf(gw, 'app', `org-${i}`));
}
rows.push(
  `installation token mint (sign + exchange + store): ${((performance.now() - started) / mints).toFixed(2)} ms each (${mints} installations, import included)`,
);

await tokens.close();
await gw.close();
await memory.close();
console.log(rows.join('\n'));
