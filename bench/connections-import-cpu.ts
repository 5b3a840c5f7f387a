/**
 * CPU per connection import through the connection service, in process (no HTTP, so the
 * store's share shows), on a fresh store: for interleaved before/after runs of two source trees
 * (a `git archive` of the older commit beside this checkout, its node_modules linked).
 *
 *   node --import tsx bench/connections-import-cpu.ts <tree> sqlite|redis <n>
 *
 * Prints one JSON line: the tree, the store, n, µs of CPU an import (this process, every
 * thread) and imports a second. Redis: database 2 of --redis-url's server, a prefix of its own,
 * removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient } from '@keyv/redis';

const [tree = '.', kind = 'sqlite', nArg = '3000'] = process.argv.slice(2);
const root = resolve(tree);
const n = Number(nArg);
if ((kind !== 'sqlite' && kind !== 'redis') || !Number.isInteger(n) || n < 1) {
  console.error(
    `connections-import-cpu: usage: <tree> sqlite|redis <n> (got store '${kind}', n '${nArg}'; n a whole number ≥ 1)`,
  );
  process.exit(2);
}
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/2';
const { createSqliteStorage, createRedisStorage } = (await import(
  `${root}/adapters/storage/index.js`
)) as typeof import('../adapters/storage/index.js');
const { createGateway } = (await import(`${root}/lib/gateway.js`)) as typeof import('../lib/gateway.js');
const { createLogger } = (await import(`${root}/lib/http/logger.js`)) as typeof import('../lib/http/logger.js');

const dir = mkdtempSync(join(tmpdir(), 'portico-import-cpu-'));
const prefix = `portico-import-cpu:${randomBytes(4).toString('hex')}:`;
const storage =
  kind === 'redis'
    ? createRedisStorage({ url: redisUrl, prefix })
    : createSqliteStorage({ path: join(dir, 'portico.db') });
const gateway = await createGateway({
  environments: [{ name: 'bench', secretKey: 'sk_bench_0123456789abcdef' }],
  storage,
  encryptionKeys: randomBytes(32).toString('base64'),
  baseUrl: 'http://127.0.0.1',
  logger: createLogger({ level: 'silent' }),
});
await gateway.integrations.create('bench', { unique_key: 'crm', provider: 'stripe' });

// As bench/connections-load.ts imports them.
const input = (i: number) => ({
  provider_config_key: 'crm',
  connection_id: `conn-${i}`,
  credentials: { type: 'API_KEY' as const, apiKey: `sk_live_${i}_${'x'.repeat(24)}` },
  end_user: { id: `user-${i % 50_000}`, email: `person${i}@example.com`, display_name: `Person ${i}` },
  metadata: { plan: i % 3 ? 'pro' : 'free' },
});
const run = async (from: number, to: number) => {
  for (let i = from; i < to; i += 16) {
    const batch = Array.from({ length: Math.min(16, to - i) }, (_, k) => input(i + k));
    await Promise.all(batch.map((c) => gateway.connections.upsert('bench', c, 'import')));
  }
};
try {
  await run(0, 500); // warm-up
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run(500, 500 + n);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const perImport = Math.round((used.user + used.system) / n);
  console.log(JSON.stringify({ tree: root, kind, n, cpuUsPerImport: perImport, perSec: Math.round(n / seconds) }));
} finally {
  await gateway.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
  if (kind === 'redis') {
    const client = createClient({ url: redisUrl });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
      if (keys.length > 0) await client.unlink(keys);
    await client.close();
  }
}
