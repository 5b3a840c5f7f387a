/**
 * Search at scale (issue 17): a store of `--n` connections written as the previous version did
 * (values and the `all` list, in batches: no HTTP import, which `bench/connections.ts` measures),
 * then the gateway's start backfills the search and end-user lists (timed), then the latency of
 * `GET /connections` with a search (one match, a full page, within the integration), an end
 * user within the integration, and a plain page, through HTTP, with the CPU a call takes in
 * this process (the gateway and the client: the client is in process here). SQLite and Redis.
 *
 *   npm run bench:connections-search -- --n 100000 --stores sqlite,redis --samples 200
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { createRedisStorage, createSqliteStorage } from '../adapters/storage/index.js';
import type { StoredConnection } from '../lib/connections/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import type { Storage } from '../lib/storage/index.js';
import { call, expectOk, secretKey } from './connections-load.js';
import { benchArgs } from './args.js';

const args = benchArgs('bench:connections-search', {
  n: {
    type: 'string',
    default: '100000',
    help: "connections written to the store in the previous version's layout (no HTTP import)",
  },
  stores: {
    type: 'string',
    default: 'sqlite,redis',
    choices: ['sqlite', 'redis'],
    commaSeparated: true,
    help: 'stores run one after another',
  },
  samples: { type: 'string', default: '200', help: 'timed calls per latency figure' },
  'redis-url': {
    type: 'string',
    default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    help: 'the Redis of --stores redis, keys under a prefix of their own, removed after (REDIS_URL sets the default)',
  },
});
const N = Number(args.n);
const SAMPLES = Number(args.samples);
const ms = (v: number) => `${v.toFixed(2)} ms`;
const fmt = (v: number) => Math.round(v).toLocaleString('en-US');

async function latency(run: (i: number) => Promise<unknown>): Promise<string> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await run(i);
    times.push(performance.now() - start);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? NaN;
  return `p50 ${ms(at(50))} p99 ${ms(at(99))}, ${fmt((used.user + used.system) / SAMPLES)} µs CPU a call (gateway and client)`;
}

/** The previous version's layout: values and the environment's `all` list (as bench/connections.ts imports them). */
async function seed(storage: Storage) {
  const now = new Date().toISOString();
  const base = Date.now() * 1000 - N;
  for (let from = 0; from < N; from += 1000) {
    const batch = Array.from({ length: Math.min(1000, N - from) }, (_, k): StoredConnection => {
      const i = from + k;
      return {
        connection_id: `conn-${i}`,
        provider_config_key: 'crm',
        provider: 'stripe',
        credentials: 'sealed',
        auth_mode: 'API_KEY',
        connection_config: {},
        metadata: { plan: i % 3 ? 'pro' : 'free' },
        end_user: { id: `user-${i % 50_000}`, email: `person${i}@example.com`, display_name: `Person ${i}` },
        auth_problem: null,
        created_at: now,
        updated_at: now,
        order: base + i,
      };
    });
    const id = (c: StoredConnection) => `crm\u001e${c.connection_id}`;
    await storage.keyv('connections').setMany(batch.map((c) => ({ key: `bench\u001f${id(c)}`, value: c })));
    await storage
      .index('connections')
      .addMany(batch.map((c) => ({ list: 'bench\u001fall', id: id(c), order: c.order as number })));
  }
  await storage.keyv('storage-layout').set('connections', 2);
}

async function bench(kind: string, storage: Storage) {
  const t0 = performance.now();
  await seed(storage);
  console.log(`\n${kind}: ${fmt(N)} connections seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const cpu = process.cpuUsage();
  const t1 = performance.now();
  const gateway = await createGateway({
    environments: [{ name: 'bench', secretKey }],
    storage,
    encryptionKeys: randomBytes(32).toString('base64'),
    baseUrl: 'http://127.0.0.1',
    logger: createLogger({ level: 'silent' }),
    storeTimeoutMs: 10_000,
  });
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - t1) / 1000;
  console.log(
    `  start with the backfill: ${seconds.toFixed(1)} s (${fmt(N / seconds)} connections/s, ${fmt((used.user + used.system) / N)} µs CPU each)`,
  );
  const server = createServer(gateway.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await expectOk(call(base, 'POST', '/integrations', { unique_key: 'crm', provider: 'stripe' }), 'integration');
  const get = (path: string) => expectOk(call(base, 'GET', path), path);
  const pick = (i: number) => (i * 7919) % N;
  try {
    const found = JSON.parse(await get(`/connections?search=person${N - 1}`)) as { data: unknown[] };
    if (found.data.length !== 1) throw new Error(`the newest connection: ${found.data.length} found`);
    console.log(
      `  search, one connection (person<i>):        ${await latency((i) => get(`/connections?limit=100&search=person${pick(i)}`))}`,
    );
    console.log(
      `  search, a full page of 100 (per):          ${await latency(() => get('/connections?limit=100&search=per'))}`,
    );
    console.log(
      `  search within the integration (person <i>): ${await latency((i) => get(`/connections?limit=100&provider_config_key=crm&search=person%20${pick(i)}`))}`,
    );
    console.log(
      `  end user within the integration:           ${await latency((i) => get(`/connections?limit=100&provider_config_key=crm&end_user_id=user-${i % 50_000}`))}`,
    );
    console.log(`  list page of 100, no filter:                ${await latency(() => get('/connections?limit=100'))}`);
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await gateway.close();
  }
}

for (const kind of String(args.stores).split(',')) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'portico-bench-search-'));
    const storage = createSqliteStorage({ path: join(dir, 'portico.db') });
    try {
      await bench('SQLite', storage);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  } else if (kind === 'redis') {
    const url = String(args['redis-url']);
    const prefix = `portico-bench-search:${randomBytes(4).toString('hex')}:`;
    const storage = createRedisStorage({ url, prefix });
    try {
      await bench('Redis', storage);
    } finally {
      await storage.close();
      const client = createClient({ url });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
        if (keys.length > 0) await client.unlink(keys);
      await client.close();
    }
  } else {
    throw new Error(`--stores: unknown store "${kind}" (sqlite, redis)`);
  }
}
