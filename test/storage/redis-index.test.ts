import t from 'tap';
import { redisStorageFor } from '../helpers/redis.js';

// addMany is one script call for every list it touches: lists of any length, several at once.
t.test('Redis: addMany writes several lists in one call, long ones too, in order', async (t) => {
  const storage = await redisStorageFor(t, 'redis-index');
  if (!storage) return;
  const index = storage.index('things');
  const base = 1_764_000_000_000_000; // microseconds since the epoch, as createOrderClock gives
  const long = Array.from({ length: 1_100 }, (_, i) => ({ list: 'all', id: `id-${i}`, order: base + i }));
  const keyed = ['b\u0001x', 'a\u0001y', 'a\u0001x'].map((id) => ({ list: 'search', id, order: 0 }));
  await index.addMany([...long, { list: 'one', id: 'solo', order: base }, ...keyed]);
  const all: string[] = [];
  for (let after; ;) {
    const page = await index.page('all', 300, after);
    all.push(...page.map((p) => p.id));
    after = page.at(-1);
    if (page.length < 300) break;
  }
  t.same(
    all,
    long.map((e) => e.id),
    'every entry of the long list, in order',
  );
  t.same(await index.page('one', 10), [{ id: 'solo', order: base }], 'the order kept exactly');
  t.same(
    (await index.page('search', 10, { order: 0, id: 'a' })).map((p) => p.id),
    ['a\u0001x', 'a\u0001y', 'b\u0001x'],
    'a keyed list by id',
  );
  // Adding again moves an entry, as ZADD does.
  await index.addMany([{ list: 'one', id: 'solo', order: base + 5 }]);
  t.same(await index.page('one', 10), [{ id: 'solo', order: base + 5 }]);
  await index.addMany([]);
  t.equal(await index.count('all'), 1_100);
});
