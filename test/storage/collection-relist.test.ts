import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createMemoryStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import { createCollection, type Storage } from '../../lib/storage/index.js';

type Item = { name: string; tag: string; order?: number };

const backends: { name: string; open(t: Test): Storage }[] = [
  { name: 'memory', open: () => createMemoryStorage() },
  { name: 'SQLite', open: (t) => createSqliteStorage({ path: join(t.testdir(), 'portico.db') }) },
];

/** The collection as an older version had it (no keys, no tag lists), and as it is now. */
const before = (storage: Storage) => createCollection<Item>(storage, 'items');
const now = (storage: Storage) =>
  createCollection<Item>(storage, 'items', {
    lists: (i) => [`tag:${i.tag}`],
    keys: (i) => [{ list: 'names', key: i.name }],
    listsVersion: 1,
  });

async function names(items: ReturnType<typeof now>, prefix: string) {
  const out: string[] = [];
  let after;
  for (;;) {
    const hits = await items.keyed('s', 'names', prefix, 100, after);
    out.push(...hits.map((h) => h.key));
    if (hits.length < 100) return out;
    after = hits.at(-1)?.position;
  }
}

for (const backend of backends) {
  t.test(`${backend.name}: relist adds the entries values were written without, and resumes`, async (t) => {
    const storage = backend.open(t);
    t.teardown(() => storage.close());
    const old = before(storage);
    for (let i = 0; i < 1200; i++) {
      const name = `n${String(i).padStart(4, '0')}`;
      await old.put('s', name, { name, tag: i % 2 ? 'odd' : 'even' }, undefined);
    }
    const items = now(storage);
    t.same(await names(items, 'n'), [], 'no keys before');

    // A run stopped after 600 values saved its place: the next one goes on from there.
    const place = (await items.page('s', 'all', 600)).at(-1);
    await storage.keyv('storage-relisted').set('items\u001fs', { version: 1, after: place });
    t.equal(await items.relist('s'), 600, 'resumed: the values after the saved place');
    t.equal((await names(items, 'n')).length, 600);
    t.equal((await names(items, 'n1')).length, 200, 'n1000…n1199, found by prefix');
    t.equal(await items.relist('s'), 0, 'then up to date');

    // A version raised again: every value, from several callers at once, each entry once.
    const again = createCollection<Item>(storage, 'items', {
      lists: (i) => [`tag:${i.tag}`],
      keys: (i) => [{ list: 'names', key: i.name }],
      listsVersion: 2,
    });
    const runs = await Promise.all([again.relist('s'), again.relist('s'), again.relist('s')]);
    t.equal(
      runs.reduce((a, b) => a + b),
      1200,
      'one caller did the work',
    );
    const all = await names(again, 'n');
    t.equal(all.length, 1200);
    t.equal(new Set(all).size, 1200, 'each value once');
    t.equal((await again.page('s', 'tag:odd', 1000)).length, 600, 'plain lists too');
    t.equal(await again.relist('s'), 0);
  });
}

t.test('a write between the read and the add of a relist step leaves no stale entry', async (t) => {
  const raw = createMemoryStorage();
  t.teardown(() => raw.close());
  await before(raw).put('s', 'x', { name: 'old', tag: 'odd' }, undefined);
  const writer = now(raw);
  let raced = false;
  // The relist's first add waits for a write that moves x to another tag and name.
  const storage: Storage = {
    ...raw,
    keyv: (namespace) => raw.keyv(namespace),
    index(namespace) {
      const index = raw.index(namespace);
      return {
        ...index,
        async addMany(entries) {
          if (!raced && namespace === 'items') {
            raced = true;
            const current = await writer.get('s', 'x');
            await writer.put('s', 'x', { name: 'new', tag: 'even' }, current);
          }
          return index.addMany(entries);
        },
      };
    },
  };
  const items = now(storage);
  t.equal(await items.relist('s'), 1);
  t.ok(raced, 'the write happened mid-step');
  t.same((await items.page('s', 'tag:odd', 10)).length, 0, 'not left in the old list');
  t.same((await items.page('s', 'tag:even', 10)).length, 1, 'in the new one');
  t.same(await names(items, ''), ['new'], 'found by its new key only');
});
