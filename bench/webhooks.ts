/**
 * Webhook delivery throughput (issue 5): events accepted through `gateway.webhooks.send` and
 * delivered, signed, to a receiver on 127.0.0.1 that answers 204. For each store: how fast events
 * are accepted into the durable outbox, and end-to-end events/s from the first send to the last
 * delivery (every delivery recorded in the history as well).
 *
 *   npm run bench:webhooks                                 # 5,000 events, memory, sqlite and redis
 *   npm run bench:webhooks -- --events 20000 --stores sqlite --concurrency 50
 *
 * Options: --events N, --stores memory,sqlite,redis, --concurrency N (attempts in flight per
 * gateway, default 20 as in the gateway), --senders N (concurrent send() callers, default 50),
 * --redis-url URL (REDIS_URL or redis://127.0.0.1:6379).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { createMemoryStorage, createRedisStorage, createSqliteStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import type { Storage } from '../lib/storage/index.js';
import { benchArgs } from './args.js';

const args = benchArgs('bench:webhooks', {
  events: { type: 'string', default: '5000', help: 'events sent and delivered per store' },
  stores: {
    type: 'string',
    default: 'memory,sqlite,redis',
    choices: ['memory', 'sqlite', 'redis'],
    commaSeparated: true,
    help: 'stores run one after another, redis skipped if nothing answers at --redis-url',
  },
  concurrency: {
    type: 'string',
    default: '20',
    help: "delivery attempts in flight per gateway (the gateway's default)",
  },
  senders: { type: 'string', default: '50', help: 'concurrent webhooks.send() callers' },
  'redis-url': {
    type: 'string',
    default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    help: 'the Redis of --stores redis, keys under a prefix of their own, removed after (REDIS_URL sets the default)',
  },
});
const N = Number(args.events);
const CONCURRENCY = Number(args.concurrency);
const SENDERS = Number(args.senders);

/** The customer's receiver: counts requests, answers 204 at once. */
async function startReceiver() {
  let count = 0;
  let done: () => void = () => {};
  let target = Infinity;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 204;
      res.end();
      if (++count >= target) done();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    until: (n: number) =>
      new Promise<void>((resolve) => {
        target = n;
        done = resolve;
        if (count >= n) resolve();
      }),
    reset: () => {
      count = 0;
      target = Infinity;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function openStore(kind: string): Promise<{ storage: Storage; cleanup: () => Promise<void> } | undefined> {
  if (kind === 'memory') return { storage: createMemoryStorage(), cleanup: async () => {} };
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
    return {
      storage: createSqliteStorage({ path: join(dir, 'bench.db') }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (kind === 'redis') {
    const prefix = `portico-bench:${randomUUID()}:`;
    const probe = createClient({ url: args['redis-url'] });
    probe.on('error', () => {});
    try {
      await probe.connect();
    } catch {
      console.log(`redis: skipped (nothing answers at ${args['redis-url']})`);
      return undefined;
    }
    return {
      storage: createRedisStorage({ url: args['redis-url'], prefix }),
      cleanup: async () => {
        for await (const keys of probe.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
          if (keys.length > 0) await probe.unlink(keys);
        await probe.close();
      },
    };
  }
  throw new Error(`unknown store "${kind}"`);
}

async function run(kind: string) {
  const opened = await openStore(kind);
  if (!opened) return undefined;
  const receiver = await startReceiver();
  const gateway = await createGateway({
    environments: [
      {
        name: 'dev',
        secretKey: 'sk_bench_0123456789abcdef',
        webhookUrl: receiver.url,
        webhookSigningKey: 'whsk_bench_0123456789abcdef',
      },
    ],
    storage: opened.storage,
    encryptionKeys: randomBytes(32).toString('base64'),
    baseUrl: 'http://127.0.0.1',
    logger: createLogger({ level: 'error' }),
    webhooks: { concurrency: CONCURRENCY },
  });
  const event = (i: number) => ({
    type: 'sync' as const,
    connection_id: `conn-${i % 100}`,
    provider_config_key: 'bench',
    provider: 'bench',
    sync_name: 'contacts',
    model: 'Contact',
    success: true,
    results: { added: i, updated: 0, deleted: 0 },
    started_at: new Date().toISOString(),
    finished_at: new Date().toISOString(),
  });
  // Warm-up: connections, JIT, the signing key.
  for (let i = 0; i < 50; i++) await gateway.webhooks.send('dev', event(i));
  await receiver.until(50);
  receiver.reset();

  const started = performance.now();
  const arrived = receiver.until(N);
  let next = 0;
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (next < N) await gateway.webhooks.send('dev', event(next++));
    }),
  );
  const accepted = performance.now() - started;
  await arrived;
  const delivered = performance.now() - started;

  await gateway.close();
  await receiver.close();
  await opened.storage.close();
  await opened.cleanup();
  return {
    store: kind,
    queue: gateway.webhooks.queueKind,
    events: N,
    acceptPerSec: Math.round(N / (accepted / 1000)),
    deliveredPerSec: Math.round(N / (delivered / 1000)),
    totalMs: Math.round(delivered),
  };
}

console.log(
  `webhook delivery: ${N} events, ${SENDERS} concurrent senders, ${CONCURRENCY} attempts in flight, receiver on 127.0.0.1 (node ${process.version})`,
);
const rows = [];
for (const kind of args.stores
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)) {
  const row = await run(kind);
  if (row) {
    rows.push(row);
    console.log(
      `${row.store.padEnd(7)} queue=${row.queue.padEnd(7)} accepted ${String(row.acceptPerSec).padStart(6)} events/s   delivered ${String(row.deliveredPerSec).padStart(6)} events/s   (${row.totalMs} ms for all)`,
    );
  }
}
