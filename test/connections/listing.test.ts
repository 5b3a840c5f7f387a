import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

type Listed = { connection_id: string; provider_config_key: string; auth_mode: string; credentials?: unknown };

/** Every page of a listing, following the cursors. */
async function walk(gw: TestGateway, query: string, limit: number): Promise<Listed[]> {
  const seen: Listed[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res = await gw.call('GET', `/connections?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(res.status, 200);
    seen.push(...(res.json.data as Listed[]));
    cursor = res.json.next_cursor;
    if (!cursor) return seen;
  }
  throw new Error('the cursor never ended');
}

t.test('filters, pages and changes, read from the ordered indexes', async (t) => {
  const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db') });
  t.teardown(() => storage.close());
  const gw = await startGateway(t, { storage });
  await gw.call('POST', '/integrations', { body: { unique_key: 'a', provider: 'stripe' } });
  await gw.call('POST', '/integrations', { body: { unique_key: 'b', provider: 'stripe' } });
  const made: { id: string; pck: string; user: string }[] = [];
  for (let i = 0; i < 30; i++) {
    const c = { id: `c${String(i).padStart(2, '0')}`, pck: i % 3 === 0 ? 'b' : 'a', user: `u${i % 4}` };
    made.push(c);
    const res = await gw.call('POST', '/connections', {
      body: {
        provider_config_key: c.pck,
        connection_id: c.id,
        credentials: { type: 'API_KEY', apiKey: `sk_${i}` },
        end_user: { id: c.user, email: `${c.user}-${c.id}@example.com` },
      },
    });
    t.equal(res.status, 201);
  }
  const want = (keep: (c: (typeof made)[number]) => boolean) => made.filter(keep).map((c) => c.id);
  const got = (listed: Listed[]) => listed.map((c) => c.connection_id);

  const all = await walk(gw, '', 7);
  t.same(
    got(all),
    want(() => true),
    'every connection once, oldest first',
  );
  t.ok(
    all.every((c) => c.auth_mode === 'API_KEY' && c.credentials === undefined),
    'a listing shows the auth mode, never credentials',
  );
  t.notMatch(JSON.stringify(all), 'sk_1', 'no secret in a listing');
  t.same(
    got(await walk(gw, '&provider_config_key=b', 4)),
    want((c) => c.pck === 'b'),
  );
  t.same(
    got(await walk(gw, '&end_user_id=u1', 3)),
    want((c) => c.user === 'u1'),
  );
  t.same(
    got(await walk(gw, '&end_user_id=u0&provider_config_key=b', 2)),
    want((c) => c.user === 'u0' && c.pck === 'b'),
    'end user within an integration',
  );
  t.same(
    got(await walk(gw, '&search=U2-C1', 2)),
    want((c) => c.user === 'u2' && c.id.startsWith('c1')),
    'search, case-insensitive, on the email',
  );

  // A new end user moves the connection from one end user's list to the other's.
  const patched = await gw.call('PATCH', '/connections/c05?provider_config_key=a', {
    body: { end_user: { id: 'u9' } },
  });
  t.equal(patched.status, 200);
  t.same(got(await walk(gw, '&end_user_id=u9', 5)), ['c05']);
  t.notOk(got(await walk(gw, '&end_user_id=u1', 5)).includes('c05'), "gone from the old end user's list");
  t.equal(got(await walk(gw, '', 50)).indexOf('c05'), 5, "keeps its place in the environment's list");

  t.equal((await gw.call('DELETE', '/connections/c06?provider_config_key=b')).status, 200);
  t.same(
    got(await walk(gw, '&provider_config_key=b', 50)),
    want((c) => c.pck === 'b' && c.id !== 'c06'),
    'a deleted connection leaves every list',
  );
  // A write cut short between the index and the value: listed, but no value. Listings skip it,
  // and deleting the integration still ends (it leaves the integration's list).
  await storage
    .index('connections')
    .addMany(['all', 'integration:b'].map((l) => ({ list: `dev\u001f${l}`, id: 'b\u001eghost', order: 1 })));
  t.same(
    got(await walk(gw, '&provider_config_key=b', 50)),
    want((c) => c.pck === 'b' && c.id !== 'c06'),
    'an entry without a value is skipped',
  );
  t.equal((await gw.call('DELETE', '/integrations/b')).status, 200);
  t.same(await storage.index('connections').page('dev\u001fintegration:b', 10), [], "the integration's list is empty");
  t.same(
    got(await walk(gw, '', 50)),
    want((c) => c.pck === 'a'),
    'deleting an integration deletes its connections',
  );
});
