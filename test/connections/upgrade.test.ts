import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createRedisStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { startGateway } from '../helpers/gateway.js';
import type { Tap } from '../storage/contract.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';

/**
 * `fixtures/legacy-layout.json` is what the collection layout (one array of every id per
 * environment) wrote, dumped from a gateway built on that code: integrations, connections
 * (one deleted), script logs. Loaded through Keyv, it is that store, on any back end.
 */
const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, '../storage/fixtures/legacy-layout.json'), 'utf8'),
) as {
  encryptionKey: string;
  rows: { namespace: string; key: string; value: unknown }[];
};

async function load(storage: Storage) {
  for (const row of fixture.rows) await storage.keyv(row.namespace).set(row.key, row.value);
}

type Backend = { name: string; open: (t: Tap) => Promise<Storage | undefined> };

const backends: Backend[] = [
  { name: 'sqlite', open: async (t) => createSqliteStorage({ path: join(t.testdir(), 'portico.db') }) },
  {
    name: 'redis',
    open: async (t) => {
      if (!(await requireRedis(t))) return undefined;
      const prefix = uniquePrefix('upgrade');
      t.teardown(() => removeRedisKeys(prefix));
      return createRedisStorage({ url: redisUrl, prefix });
    },
  },
];

const ids = (body: { data: { connection_id: string }[] }) => body.data.map((c) => c.connection_id);

for (const backend of backends) {
  t.test(`${backend.name}: a store written by the older layout opens and lists after the upgrade`, async (t) => {
    const storage = await backend.open(t);
    if (!storage) return;
    t.teardown(() => storage.close());
    await load(storage);

    const gw = await startGateway(t, { storage, encryptionKeys: fixture.encryptionKey });
    const all = await gw.call('GET', '/connections');
    t.equal(all.status, 200);
    t.same(
      ids(all.json),
      ['s0', 's1', 's2', 's4', 'g1'],
      'every connection, in the order they were created, the deleted one absent',
    );
    t.same(
      all.json.data.map((c: { auth_mode: string }) => c.auth_mode),
      ['API_KEY', 'API_KEY', 'API_KEY', 'API_KEY', 'OAUTH2'],
      'the auth mode read once from the sealed credentials',
    );
    t.same(all.json.data[1].end_user, { id: 'u1', email: 'user1@example.com', display_name: 'User 1' });
    t.same(ids((await gw.call('GET', '/connections?end_user_id=u1')).json), ['s1'], 'by end user');
    t.same(ids((await gw.call('GET', '/connections?provider_config_key=gh')).json), ['g1'], 'by integration');
    t.same(ids((await gw.call('GET', '/connections?search=USER4')).json), ['s4'], 'by search');
    const page1 = await gw.call('GET', '/connections?limit=3');
    const page2 = await gw.call('GET', `/connections?limit=3&cursor=${page1.json.next_cursor}`);
    t.same([...ids(page1.json), ...ids(page2.json)], ['s0', 's1', 's2', 's4', 'g1'], 'pages');
    t.equal(page2.json.next_cursor, null);
    t.same(
      ids((await gw.call('GET', '/connections', { key: 'sk_test_prod_0123456789abcdef' })).json),
      ['p1'],
      'environments stay apart',
    );

    const one = await gw.call('GET', '/connections/s0?provider_config_key=stripe');
    t.equal(one.json.data.credentials.apiKey, 'sk_live_0', 'credentials open with the same key');
    const integrations = await gw.call('GET', '/integrations');
    t.same(
      integrations.json.data.map((i: { unique_key: string }) => i.unique_key),
      ['gh', 'stripe'],
    );
    t.equal(await storage.keyv('connections-index').get('dev'), undefined, 'the old id array is gone');
    t.equal(await storage.keyv('integrations-index').get('dev'), undefined);

    const logs = await gw.call('GET', '/logs');
    t.same(
      logs.json.data.map((l: { message: string }) => l.message),
      ['third', 'second', 'first'],
      'script logs, newest first',
    );
    t.same(
      (await gw.call('GET', '/logs?script=issues')).json.data.map((l: { message: string }) => l.message),
      ['first'],
      'by script',
    );
    t.same(
      (await gw.call('GET', '/logs?connection_id=s1')).json.data.map((l: { run_id: string }) => l.run_id),
      ['run-2', 'run-2'],
      'by connection',
    );
    const logPage = await gw.call('GET', '/logs?limit=1');
    t.same(
      (await gw.call('GET', `/logs?limit=5&cursor=${logPage.json.next_cursor}`)).json.data.map(
        (l: { message: string }) => l.message,
      ),
      ['second', 'first'],
      'pages',
    );
    t.equal(await storage.keyv('script-log-index').get('dev'), undefined, 'the old run array is gone');

    const created = await gw.call('POST', '/connections', {
      body: { provider_config_key: 'stripe', connection_id: 'new', credentials: { type: 'API_KEY', apiKey: 'sk_new' } },
    });
    t.equal(created.status, 201);
    t.same(
      ids((await gw.call('GET', '/connections')).json).at(-1),
      'new',
      'a new connection lists after the upgraded ones',
    );

    // Starting again (the arrays are gone) changes nothing.
    const again = await startGateway(t, { storage, encryptionKeys: fixture.encryptionKey });
    t.same(ids((await again.call('GET', '/connections')).json), ['s0', 's1', 's2', 's4', 'g1', 'new']);
  });
}
