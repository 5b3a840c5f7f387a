import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createRedisStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import type { StoredConnection } from '../../lib/connections/index.js';
import { storedId } from '../../lib/connections/store.js';
import type { Storage } from '../../lib/storage/index.js';
import { startGateway } from '../helpers/gateway.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';

const total = 20_000;
/** Where the matches sit among the connections, oldest first: the first, one in the middle, the last. */
const needles = new Set([0, 10_000, total - 1]);

const backends: { name: string; open(t: Test): Promise<Storage | undefined> }[] = [
  { name: 'SQLite', open: async (t) => createSqliteStorage({ path: join(t.testdir(), 'portico.db') }) },
  {
    name: 'Redis',
    open: async (t) => {
      if (!(await requireRedis(t))) return undefined;
      const prefix = uniquePrefix('search-scale');
      t.teardown(() => removeRedisKeys(prefix));
      return createRedisStorage({ url: redisUrl, prefix });
    },
  },
];

for (const backend of backends) {
  t.test(`${backend.name}: a search over ${total} connections finds every match in one call`, async (t) => {
    const storage = await backend.open(t);
    if (!storage) return;
    t.teardown(() => storage.close());
    // Written as the previous version did (values and the `all` list), in batches: the gateway's
    // start adds the search and end-user lists (the backfill), then a search is one call.
    const now = new Date().toISOString();
    for (let i = 0; i < total; i += 1000) {
      const batch = Array.from({ length: 1000 }, (_, k): StoredConnection => {
        const n = i + k;
        return {
          connection_id: `conn-${n}`,
          provider_config_key: 'crm',
          provider: 'stripe',
          credentials: 'sealed',
          auth_mode: 'API_KEY',
          connection_config: {},
          metadata: {},
          end_user: {
            id: `u${n % 500}`,
            email: `user${n}@example.com`,
            display_name: needles.has(n) ? `Needle ${n}` : `User ${n}`,
          },
          auth_problem: null,
          created_at: now,
          updated_at: now,
          order: 1_000_000 + n,
        };
      });
      const id = (c: StoredConnection) => storedId('crm', c.connection_id);
      await storage.keyv('connections').setMany(batch.map((c) => ({ key: `dev\u001f${id(c)}`, value: c })));
      await storage
        .index('connections')
        .addMany(batch.map((c) => ({ list: 'dev\u001fall', id: id(c), order: c.order as number })));
    }
    await storage.keyv('storage-layout').set('connections', 2);
    // Generous: the backfill's steps on a loaded machine (the suite runs beside this) are not what is tested.
    const gw = await startGateway(t, { storage, storeTimeoutMs: 30_000 });
    const res = await gw.call('GET', '/connections?search=needle');
    t.equal(res.status, 200);
    t.same(
      res.json.data.map((c: { connection_id: string }) => c.connection_id).sort(),
      ['conn-0', 'conn-10000', 'conn-19999'],
      'the oldest, a middle and the newest match, in one call',
    );
    t.equal(res.json.next_cursor, null, 'and nothing more to read');
    const within = await gw.call('GET', '/connections?search=needle&provider_config_key=crm&limit=2');
    t.equal(within.json.data.length, 2, 'a full page within an integration');
    const user = await gw.call('GET', '/connections?end_user_id=u499&provider_config_key=crm&limit=1000');
    t.same(
      user.json.data.map((c: { connection_id: string }) => c.connection_id),
      Array.from({ length: total / 500 }, (_, k) => `conn-${k * 500 + 499}`),
      "an end user's 40 connections within an integration, in one call",
    );
  });
}
