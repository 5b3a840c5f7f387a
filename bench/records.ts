/**
 * Records store benchmark (issue 4): ingest, full paging, page-of-100 latency, re-save 10% and
 * read the changes by cursor, on the memory and Redis stores; memory use of the memory store
 * after churn. In-process through the store API, and page latency through HTTP as well.
 *
 *   npm run bench:records                       # 1,000,000 records, memory and Redis
 *   npm run bench:records -- --records 100000 --stores memory
 *
 * Options: --records N, --batch N (10000), --stores memory,redis, --samples N (300),
 * --churn-rounds N (10; memory store only: rounds of 10% re-saves before the memory check),
 * --redis-url URL (REDIS_URL or redis://127.0.0.1:6379),
 * --postgres-url URL (POSTGRES_URL or postgres://postgres@127.0.0.1:5432/postgres; a schema of its own, dropped after).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { createMemoryStorage, createPostgresStorage, createRedisStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import type { StreamRef } from '../lib/records/index.js';
import type { Storage } from '../lib/storage/index.js';
import { benchArgs } from './args.js';

const args = benchArgs('bench:records', {
  records: { type: 'string', default: '1000000', help: 'records saved into one stream, about 250 bytes of JSON each' },
  batch: { type: 'string', default: '10000', help: 'records per batchSave call, at ingest and in the re-saves' },
  stores: {
    type: 'string',
    default: 'memory,redis',
    choices: ['memory', 'redis', 'postgres'],
    commaSeparated: true,
    help: 'stores run one after another',
  },
  samples: { type: 'string', default: '300', help: 'timed calls per page-of-100 latency figure' },
  'churn-rounds': {
    type: 'string',
    default: '10',
    help: 'memory store only: rounds of 10% re-saves before compaction and the memory figures',
  },
  'redis-url': {
    type: 'string',
    default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    help: 'the Redis of --stores redis, keys under a prefix of their own, removed after (REDIS_URL sets the default)',
  },
  'postgres-url': {
    type: 'string',
    default: process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    help: 'the PostgreSQL of --stores postgres, in a schema of its own, dropped after (POSTGRES_URL sets the default)',
  },
});
const N = Number(args.records);
const BATCH = Number(args.batch);
const SAMPLES = Number(args.samples);
const CHURN_ROUNDS = Number(args['churn-rounds']);
const secretKey = 'sk_bench_0123456789abcdef';
const gc = (globalThis as { gc?: () => void }).gc;

const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString('en-US');
const rate = (count: number, ms: number, cpuMs?: number) =>
  `${perSecond(count, ms)} records/s${cpuMs === undefined ? '' : ` (${perSecond(count, cpuMs)} per CPU-second of this process)`}`;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** A CRM-contact-like record, about 250 bytes of JSON. */
const record = (i: number, version = 1) => ({
  id: `contact_${i}`,
  first_name: `First${i}`,
  last_name: `Last${i}`,
  email: `person${i}@example.com`,
  company: `Company ${i % 5000}`,
  phone: `+1-555-${String(i % 10_000).padStart(4, '0')}`,
  tags: ['customer', i % 2 ? 'newsletter' : 'trial'],
  score: i % 100,
  version,
});

/** Wall-clock ms, and the CPU ms this process spent meanwhile (a fair figure on a busy machine). */
async function timed<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return [value, performance.now() - start, (used.user + used.system) / 1000];
}

function heapAfterGc(): number | undefined {
  if (!gc) return undefined;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function latency(label: string, run: (i: number) => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await run(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(
    `  ${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms (${SAMPLES} samples)`,
  );
}

async function bench(kind: string, storage: Storage): Promise<void> {
  console.log(`\n${kind} store, ${N.toLocaleString('en-US')} records, batches of ${BATCH.toLocaleString('en-US')}`);
  const baseline = heapAfterGc();
  const gateway = await createGateway({
    environments: [{ name: 'bench', secretKey }],
    storage,
    encryptionKeys: randomBytes(32).toString('base64'),
    baseUrl: 'http://127.0.0.1',
    logger: createLogger({ level: 'silent' }),
  });
  const server = createServer(gateway.callback());
  // The HTTP phase starts after a long ingest: keep the client's idle connection open until then.
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json', ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  await call('POST', '/integrations', {
    unique_key: 'crm',
    provider: 'hubspot',
    credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret-123456' },
  });
  await call('POST', '/connections', {
    provider_config_key: 'crm',
    connection_id: 'acme',
    credentials: { type: 'OAUTH2', access_token: 'token' },
  });
  const ref: StreamRef = { environment: 'bench', providerConfigKey: 'crm', connectionId: 'acme', model: 'Contact' };
  const { records } = gateway;

  try {
    const [, ingestMs, ingestCpu] = await timed(async () => {
      for (let from = 0; from < N; from += BATCH) {
        await records.batchSave(
          ref,
          Array.from({ length: Math.min(BATCH, N - from) }, (_, k) => record(from + k)),
        );
      }
    });
    console.log(`  ingest: ${rate(N, ingestMs, ingestCpu)}`);
    const afterIngest = heapAfterGc();

    // Full paging with limit 1000; keeps a cursor per page for the latency samples.
    const cursors: string[] = [];
    const [read, pageMs, pageCpu] = await timed(async () => {
      let count = 0;
      let cursor: string | undefined;
      for (;;) {
        const result = await records.list(ref, { limit: 1000, cursor });
        if (!result.ok) throw new Error(result.reason);
        count += result.page.records.length;
        if (!result.page.next_cursor) return { count, last: result.page.records.at(-1)?._service_metadata.cursor };
        cursor = result.page.next_cursor;
        cursors.push(cursor);
      }
    });
    console.log(
      `  page through all (limit 1000): ${rate(read.count, pageMs, pageCpu)} (${read.count.toLocaleString('en-US')} records)`,
    );

    const pick = (i: number) => cursors[(i * 7919) % cursors.length];
    await latency('page of 100, store API', (i) => records.list(ref, { limit: 100, cursor: pick(i) }));
    const headers = { 'connection-id': 'acme', 'provider-config-key': 'crm' };
    await latency('page of 100, GET /records over HTTP', async (i) => {
      const cursor = pick(i);
      const res = await call(
        'GET',
        `/records?model=Contact&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        undefined,
        headers,
      );
      if (res.status !== 200) throw new Error(`GET /records answered ${res.status}`);
      await res.arrayBuffer();
    });

    // Re-save 10% changed, then read exactly those changes from the last cursor.
    const churn = async (version: number) => {
      const changed = Array.from({ length: Math.floor(N / 10) }, (_, k) => record(k * 10 + (version % 10), version));
      let counts = { added: 0, updated: 0, unchanged: 0 };
      for (let from = 0; from < changed.length; from += BATCH) {
        const part = await records.batchSave(ref, changed.slice(from, from + BATCH));
        counts = {
          added: counts.added + part.added,
          updated: counts.updated + part.updated,
          unchanged: counts.unchanged + part.unchanged,
        };
      }
      return counts;
    };
    const [counts, resaveMs, resaveCpu] = await timed(() => churn(2));
    console.log(
      `  re-save 10% changed: ${rate(N / 10, resaveMs, resaveCpu)} (updated ${counts.updated.toLocaleString('en-US')})`,
    );
    const [changes, changesMs, changesCpu] = await timed(async () => {
      let count = 0;
      let cursor = read.last;
      for (;;) {
        const result = await records.list(ref, { limit: 1000, cursor });
        if (!result.ok) throw new Error(result.reason);
        count += result.page.records.length;
        if (!result.page.next_cursor) return count;
        cursor = result.page.next_cursor;
      }
    });
    console.log(
      `  read the changes by cursor: ${rate(changes, changesMs, changesCpu)} (${changes.toLocaleString('en-US')} records)`,
    );

    if (kind === 'memory') {
      for (let round = 3; round < 2 + CHURN_ROUNDS; round++) await churn(round);
      await records.compact(ref);
      const stats = await records.stats(ref);
      const afterChurn = heapAfterGc();
      console.log(
        `  log after ${CHURN_ROUNDS} rounds of 10% churn and compaction: ${stats.logEntries.toLocaleString('en-US')} entries for ${stats.records.toLocaleString('en-US')} records`,
      );
      if (baseline !== undefined && afterIngest !== undefined && afterChurn !== undefined) {
        console.log(
          `  heap used by the store: ${mb(afterIngest - baseline)} after ingest, ${mb(afterChurn - baseline)} after churn`,
        );
      } else {
        console.log('  (run with node --expose-gc for the memory figures)');
      }
    }
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await gateway.close();
  }
}

for (const kind of args.stores.split(',').map((s) => s.trim())) {
  if (kind === 'memory') {
    const storage = createMemoryStorage();
    await bench('memory', storage);
    await storage.close();
  } else if (kind === 'redis') {
    const prefix = `portico-bench:${randomBytes(4).toString('hex')}:`;
    const storage = createRedisStorage({ url: args['redis-url'], prefix });
    try {
      await bench('redis', storage);
    } finally {
      await storage.close();
      await removeKeys(args['redis-url'], prefix);
    }
  } else if (kind === 'postgres') {
    const schema = `portico_bench_${randomBytes(4).toString('hex')}`;
    const storage = createPostgresStorage({ url: args['postgres-url'], schema });
    try {
      await bench('postgres', storage);
    } finally {
      await storage.close();
      const client = new pg.Client({ connectionString: args['postgres-url'] });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  } else {
    throw new Error(`unknown store "${kind}" (memory, redis, postgres)`);
  }
}

/** The bench's keys live under a prefix of their own; remove them all. */
async function removeKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 10_000 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}
