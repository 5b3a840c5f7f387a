import t, { type Test } from 'tap';
import { createPostgresStorage } from '../../adapters/storage/index.js';
import { createCollection, valueWrite, type Storage } from '../../lib/storage/index.js';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';
import { redisStorageFor, redisStorageWithClient } from '../helpers/redis.js';

type Thing = { name: string; tag: string; order?: number };

/** Where a value and its index entries are one command (`writeListed`): what Keyv and the lists then show. */
const stores: Array<[string, (t: Test) => Promise<Storage | undefined>]> = [
  ['Redis', (t) => redisStorageFor(t, 'listed-write')],
  [
    'PostgreSQL',
    async (t) => {
      if (!(await requirePostgres(t))) return undefined;
      const storage = createPostgresStorage({ url: postgresSchema(t, 'listed-write').url });
      t.teardown(() => storage.close());
      return storage;
    },
  ],
];

for (const [name, open] of stores)
  t.test(
    `${name}: a value written with its entries reads back through Keyv and is listed where it belongs`,
    async (t) => {
      const storage = await open(t);
      if (!storage) return;
      t.ok(storage.writeListed, 'the storage writes a value with its entries in one command');
      const things = createCollection<Thing>(storage, 'things', { lists: (v) => [`tag:${v.tag}`] });
      const names = async (list: string) => (await things.page('s', list, 10)).map((p) => p.id);

      // Text Keyv escapes (a string that begins with ':') comes back as it went in.
      const first = await things.put('s', 'a', { name: ':colon', tag: 'red' }, undefined);
      t.same(await things.get('s', 'a'), first, 'Keyv reads the value back');
      t.same(await storage.keyv('things').get('s\u001fa'), first, 'through the namespace Keyv, too');
      t.same(await names('all'), ['a']);
      t.same(await names('tag:red'), ['a']);

      // A change moves it between lists and keeps its place in `all`.
      await things.put('s', 'b', { name: 'b', tag: 'red' }, undefined);
      const moved = await things.put('s', 'a', { name: 'a2', tag: 'blue' }, first);
      t.equal(moved.order, first.order, 'its order kept');
      t.same(await names('all'), ['a', 'b']);
      t.same(await names('tag:red'), ['b'], 'out of the list it left');
      t.same(await names('tag:blue'), ['a'], 'in the one it joined');

      t.equal(await things.delete('s', 'a', moved), true, 'a deletion finds the value');
      t.equal(await things.get('s', 'a'), undefined);
      t.same(await names('all'), ['b']);
      t.same(await names('tag:blue'), []);
      t.equal(await things.delete('s', 'a', undefined, ['tag:blue']), false, 'and then nothing to delete');

      // Several writes, several namespaces, one call: each answered in order.
      const write = storage.writeListed;
      if (!write) return;
      await storage.keyv('records').set('old', { n: 0 });
      const answers = await write([
        valueWrite('events', 'e1', { body: ':text' }),
        { namespace: 'records', key: 'r1', value: { n: 1 }, add: [{ list: 'all', id: 'r1', order: 1 }], remove: [] },
        valueWrite('records', 'old'),
        valueWrite('records', 'never-there'),
      ]);
      t.same(answers, [true, true, true, false], 'a deletion says whether there was a value');
      t.same(await storage.keyv('events').get('e1'), { body: ':text' }, 'each namespace’s Keyv reads its value');
      t.same(await storage.keyv('records').get('r1'), { n: 1 });
      t.equal(await storage.keyv('records').get('old'), undefined);
      t.same(await storage.index('records').page('all', 10), [{ id: 'r1', order: 1 }]);
    },
  );

t.test('Redis: an entry that cannot be written stops the write before its value', async (t) => {
  const opened = await redisStorageWithClient(t, 'listed-write');
  if (!opened) return;
  const { storage, raw, prefix } = opened;
  const things = createCollection<Thing>(storage, 'things', { lists: (v) => [`tag:${v.tag}`] });
  const before = await things.put('s', 'a', { name: 'a', tag: 'red' }, undefined);
  // Not a sorted set: ZADD to it fails (WRONGTYPE), as any refused command would.
  await raw.set(`${prefix}idx:things:s\u001ftag:blue`, 'not a list');

  await t.rejects(things.put('s', 'a', { name: 'a2', tag: 'blue' }, before), /WRONGTYPE/);
  t.same(await things.get('s', 'a'), before, 'the value is the one before');
  t.same(
    (await things.page('s', 'tag:red', 10)).map((p) => p.id),
    ['a'],
    'still listed where it was',
  );
  await t.rejects(things.put('s', 'n', { name: 'n', tag: 'blue' }, undefined), /WRONGTYPE/);
  t.equal(await things.get('s', 'n'), undefined, 'a new value is not written at all');
});

t.test('Redis: several writes in one command land in order, and one refused stops those after it', async (t) => {
  const opened = await redisStorageWithClient(t, 'listed-write');
  if (!opened) return;
  const { storage, raw, prefix } = opened;
  const write = storage.writeListed;
  if (!write) return t.fail('the Redis storage has writeListed');
  const events = storage.keyv('events');
  const records = storage.keyv('records');
  await raw.set(`${prefix}idx:records:bad`, 'not a list');
  await t.rejects(
    write([
      valueWrite('events', 'e2', { body: 'two' }),
      { namespace: 'records', key: 'r2', value: { n: 2 }, add: [{ list: 'bad', id: 'r2', order: 2 }], remove: [] },
      valueWrite('events', 'e3', { body: 'three' }),
    ]),
    /WRONGTYPE/,
  );
  t.same(await events.get('e2'), { body: 'two' }, 'the writes before the refused one landed');
  t.equal(await records.get('r2'), undefined, 'the refused one’s value did not');
  t.equal(await events.get('e3'), undefined, 'nor any write after it');
});

t.test('PostgreSQL: writes in one call are one statement: one refused, none lands', async (t) => {
  if (!(await requirePostgres(t))) return;
  const storage = createPostgresStorage({ url: postgresSchema(t, 'listed-write').url });
  t.teardown(() => storage.close());
  const write = storage.writeListed;
  if (!write) return t.fail('the PostgreSQL storage has writeListed');
  const events = storage.keyv('events');
  await events.set('e0', { body: 'zero' });
  // PostgreSQL's text holds no NUL: the entry is refused, and with it the whole statement.
  await t.rejects(
    write([
      valueWrite('events', 'e1', { body: 'one' }),
      valueWrite('events', 'e0'),
      {
        namespace: 'records',
        key: 'r1',
        value: { n: 1 },
        add: [{ list: 'all', id: 'r\u00001', order: 1 }],
        remove: [],
      },
    ]),
  );
  t.equal(await events.get('e1'), undefined, 'the write before the refused one did not land either');
  t.same(await events.get('e0'), { body: 'zero' }, 'nor did the deletion');
  t.same(await storage.index('records').page('all', 10), []);

  // A key written twice in one call: the later write wins, as in order.
  t.same(
    await write([
      valueWrite('events', 'e2', { body: 'two' }),
      valueWrite('events', 'e2'),
      valueWrite('events', 'e3', { n: 3 }),
    ]),
    [true, true, true],
    'the deletion finds the value set just before it',
  );
  t.equal(await events.get('e2'), undefined);
  t.same(await events.get('e3'), { n: 3 });
});
