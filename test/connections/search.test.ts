import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createMemoryStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import { connectionLists } from '../../lib/connections/listing.js';
import { searchKeys } from '../../lib/connections/search.js';
import type { StoredConnection } from '../../lib/connections/index.js';
import { keyedEntryId, type Storage } from '../../lib/storage/index.js';
import { prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { sharedStores } from '../helpers/shared-stores.js';

type Listed = { connection_id: string; provider_config_key: string };
type Backend = { name: string; open(t: Test): Promise<Storage | undefined> };

const backends: Backend[] = [
  { name: 'memory', open: async () => createMemoryStorage() },
  { name: 'SQLite', open: async (t) => createSqliteStorage({ path: join(t.testdir(), 'portico.db') }) },
  ...sharedStores.map((s) => ({
    name: s.name,
    open: async (t: Test) => ((await s.require(t)) ? s.place(t, 'search')() : undefined),
  })),
];

/** Every page of a listing, following the cursors; the ids as `pck/id`. */
async function walk(t: Test, gw: TestGateway, query: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const res = await gw.call('GET', `/connections?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(res.status, 200, query);
    seen.push(...(res.json.data as Listed[]).map((c) => `${c.provider_config_key}/${c.connection_id}`));
    cursor = res.json.next_cursor;
    if (!cursor) return seen;
  }
  throw new Error('the cursor never ended');
}

const people = [
  { id: 'ada-1', pck: 'a', user: 'u-ada', email: 'ada.lovelace@example.com', name: 'Ada Lovelace' },
  { id: 'ada-2', pck: 'b', user: 'u-ada', email: 'ada.lovelace@example.com', name: 'Ada Lovelace' },
  { id: 'alan', pck: 'a', user: 'u-alan', email: 'turing@bletchley.org', name: 'Alan Turing' },
  { id: 'grace', pck: 'b', user: 'u-grace', email: 'grace@navy.mil', name: 'Grace Hopper' },
  { id: 'x-lovelace', pck: 'b', user: 'u-other', email: 'other@example.com', name: 'Émile Lovelace' },
];

async function seed(gw: TestGateway) {
  for (const key of ['a', 'b'])
    await gw.call('POST', '/integrations', { body: { unique_key: key, provider: 'stripe' } });
  for (const p of people) {
    const res = await gw.call('POST', '/connections', {
      body: {
        provider_config_key: p.pck,
        connection_id: p.id,
        credentials: { type: 'API_KEY', apiKey: 'sk' },
        end_user: { id: p.user, email: p.email, display_name: p.name },
      },
    });
    if (res.status !== 201) throw new Error(res.text);
  }
}

for (const backend of backends) {
  t.test(`${backend.name}: search and end user filters read index lists`, async (t) => {
    const storage = await backend.open(t);
    if (!storage) return;
    t.teardown(() => storage.close());
    const gw = await startGateway(t, { storage });
    await seed(gw);

    t.same(
      await walk(t, gw, '&search=LOVE', 1),
      ['a/ada-1', 'b/ada-2', 'b/x-lovelace'],
      'a word start of the email, the name or the id, case-insensitive; each connection once, a page at a time',
    );
    t.same(await walk(t, gw, '&search=ovelace', 10), [], 'not inside a word');
    t.same(await walk(t, gw, '&search=ada.lovelace@exa', 10), ['a/ada-1', 'b/ada-2'], 'across words');
    t.same(await walk(t, gw, '&search=émile', 10), ['b/x-lovelace'], 'letters beyond ASCII');
    t.same(await walk(t, gw, '&search=a', 2), ['a/ada-1', 'b/ada-2', 'a/alan'], 'in order of the matched text');
    t.same(
      await walk(t, gw, '&search=love&provider_config_key=b', 1),
      ['b/ada-2', 'b/x-lovelace'],
      'within an integration',
    );
    t.same(await walk(t, gw, '&search=love&end_user_id=u-ada', 1), ['a/ada-1', 'b/ada-2'], 'of an end user');
    t.same(
      await walk(t, gw, '&search=love&end_user_id=u-ada&provider_config_key=b', 1),
      ['b/ada-2'],
      'of an end user within an integration',
    );
    t.same(
      await walk(t, gw, '&end_user_id=u-ada&provider_config_key=a', 1),
      ['a/ada-1'],
      'end user within an integration',
    );
    t.same(
      await walk(t, gw, '&search=@example', 10),
      ['a/ada-1', 'b/ada-2', 'b/x-lovelace'],
      'leading punctuation ignored',
    );

    const bad = await gw.call('GET', '/connections?search=@@');
    t.equal(bad.status, 400, 'a term without a letter or digit');
    t.equal(bad.json.error.code, 'invalid_request');
    const first = await gw.call('GET', '/connections?search=love&limit=1');
    const foreign = await gw.call('GET', `/connections?search=grace&cursor=${first.json.next_cursor}`);
    t.equal(foreign.status, 400, "another search's cursor is refused");

    // A new email and name: found by the new words only; deleted: found by none.
    const patched = await gw.call('PATCH', '/connections/ada-1?provider_config_key=a', {
      body: { end_user: { id: 'u-ada', email: 'countess@example.com', display_name: 'Augusta King' } },
    });
    t.equal(patched.status, 200);
    t.same(
      await walk(t, gw, '&search=love', 10),
      ['b/ada-2', 'b/x-lovelace'],
      'the old email and name no longer match',
    );
    t.same(await walk(t, gw, '&search=augusta', 10), ['a/ada-1'], 'the new name does');
    t.same(
      await walk(t, gw, '&search=ada', 10),
      ['b/ada-2', 'a/ada-1'],
      'the id still does (after "ada lovelace", the other one\'s name)',
    );
    await gw.call('PATCH', '/connections/ada-2?provider_config_key=b', { body: { end_user: { id: 'u-new' } } });
    t.same(await walk(t, gw, '&end_user_id=u-ada&provider_config_key=b', 10), [], "gone from the old end user's list");
    t.same(await walk(t, gw, '&end_user_id=u-new&provider_config_key=b', 10), ['b/ada-2']);
    t.equal((await gw.call('DELETE', '/connections/x-lovelace?provider_config_key=b')).status, 200);
    t.same(await walk(t, gw, '&search=love', 10), [], 'a deleted connection is found by nothing');
    t.same(await walk(t, gw, '&search=other', 10), []);
  });

  t.test(`${backend.name}: a store written without the search lists is backfilled on start`, async (t) => {
    const storage = await backend.open(t);
    if (!storage) return;
    t.teardown(() => storage.close());
    const before = await startGateway(t, { storage });
    await seed(before);
    // What the previous version wrote: the values and the all/integration/end user lists only.
    const index = storage.index('connections');
    for (const p of people) {
      const id = `${p.pck}\u001e${p.id}`;
      const stored = (await storage.keyv<StoredConnection>('connections').get(`dev\u001f${id}`)) as StoredConnection;
      for (const { list, key } of searchKeys(stored)) await index.remove(`dev\u001f${list}`, keyedEntryId(key, id));
      const within = connectionLists(stored).filter((l) => l.includes(':end_user:'));
      for (const list of within) await index.remove(`dev\u001f${list}`, id);
    }
    await storage.keyv('storage-relisted').delete('connections\u001fdev');
    t.same(await walk(t, before, '&search=love', 10), [], 'nothing found before the upgrade');
    t.same(await walk(t, before, '&end_user_id=u-ada&provider_config_key=a', 10), []);

    const after = await startGateway(t, { storage });
    t.same(await walk(t, after, '&search=love', 2), ['a/ada-1', 'b/ada-2', 'b/x-lovelace'], 'found after it');
    t.same(await walk(t, after, '&search=grace&provider_config_key=b', 10), ['b/grace']);
    t.same(await walk(t, after, '&end_user_id=u-ada&provider_config_key=a', 10), ['a/ada-1']);
    t.equal(await after.gateway.connections.upgrade(['dev', 'prod']), 0, 'a second start has nothing to do');
  });

  t.test(`${backend.name}: a deletion that finds no value leaves no search entry behind once searched`, async (t) => {
    const storage = await backend.open(t);
    if (!storage) return;
    t.teardown(() => storage.close());
    const gw = await startGateway(t, { storage });
    await seed(gw);
    const index = storage.index('connections');
    /** The index entries of the search and end user lists that name `id`. */
    const entriesOf = async (id: string) => {
      const found: string[] = [];
      for (const list of ['search', 'end_user:u-ada', 'integration:b:end_user:u-ada']) {
        const entries = await index.page(
          `dev\u001f${list}`,
          1_000,
          list === 'search' ? { order: 0, id: '' } : undefined,
        );
        for (const e of entries) if (e.id === id || e.id.endsWith(`\u0001${id}`)) found.push(`${list} ${e.id}`);
      }
      return found;
    };
    const ghost = `b\u001eada-2`;
    t.ok((await entriesOf(ghost)).length > 5, 'ada-2 is listed by its word starts and its end user');
    // A deletion cut short after its value went: the value and its `all` entry are gone, the
    // search and end user entries stay. Deleting again finds no value to derive them from.
    const values = storage.keyv<StoredConnection>('connections');
    t.ok(await values.delete(`dev\u001f${ghost}`));
    await index.remove('dev\u001fall', ghost);
    const again = await gw.call('DELETE', '/connections/ada-2?provider_config_key=b');
    t.equal(again.status, 404, 'the second deletion: not found');
    t.equal(again.json.error.code, 'unknown_connection');

    t.same(await walk(t, gw, '&search=ada', 10), ['a/ada-1'], 'search finds the live one only');
    t.same(await walk(t, gw, '&search=lovelace', 10), ['a/ada-1', 'b/x-lovelace']);
    t.same(await walk(t, gw, '&search=love&end_user_id=u-ada', 10), ['a/ada-1'], 'and within the end user');
    t.same(await walk(t, gw, '&search=ada&provider_config_key=b', 10), [], 'and within its integration');
    t.same(await walk(t, gw, '&search=exa', 10), ['a/ada-1', 'b/x-lovelace'], 'the email domain');
    t.same(await walk(t, gw, '&search=love&end_user_id=u-ada&provider_config_key=b', 10), [], 'within both');
    t.same(await entriesOf(ghost), [], 'its search and end user entries are gone, not kept');
    t.ok((await entriesOf(`a\u001eada-1`)).length > 5, "the live connection's entries are all kept");
    t.same(await walk(t, gw, '&search=ada', 10), ['a/ada-1'], 'and is still found');

    // An entry a write left while the value moved on (an email changed, its old entry not
    // removed): searched, it goes too, and the connection is found by its new email only.
    const patched = await gw.call('PATCH', '/connections/grace?provider_config_key=b', {
      body: { end_user: { id: 'u-grace', email: 'admiral@navy.mil', display_name: 'Grace Hopper' } },
    });
    t.equal(patched.status, 200, patched.text);
    const graceId = `b\u001egrace`;
    await index.addMany([{ list: 'dev\u001fsearch', id: keyedEntryId('grace@navy.mil', graceId), order: 0 }]);
    t.same(await walk(t, gw, '&search=grace@', 10), [], 'the old email finds nothing');
    const left = await index.page('dev\u001fsearch', 10, { order: 0, id: 'grace@' });
    t.notOk(
      left.some((e) => e.id === keyedEntryId('grace@navy.mil', graceId)),
      'and its entry is gone',
    );
    t.same(await walk(t, gw, '&search=admiral', 10), ['b/grace'], 'the new one finds Grace');
  });
}

t.test(
  "another environment's key finds none of dev's connections by search, nor reads on with dev's cursor",
  async (t) => {
    const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db') });
    t.teardown(() => storage.close());
    const gw = await startGateway(t, { storage });
    await seed(gw);
    const dev = await gw.call('GET', '/connections?search=ada&limit=1');
    t.equal(dev.status, 200);
    t.equal(dev.json.data.length, 1, 'dev finds its own');
    t.ok(dev.json.next_cursor, 'with more to read');
    for (const query of ['search=ada', 'search=lovelace&provider_config_key=b', 'search=grace&end_user_id=u-grace']) {
      const prod = await gw.call('GET', `/connections?${query}`, { key: prodKey });
      t.equal(prod.status, 200, query);
      t.same(prod.json.data, [], `prod sees nothing for ${query}`);
    }
    const replayed = await gw.call('GET', `/connections?search=ada&limit=1&cursor=${dev.json.next_cursor}`, {
      key: prodKey,
    });
    t.same(replayed.status === 200 ? replayed.json.data : [], [], "dev's cursor shows prod nothing of dev's");
  },
);
