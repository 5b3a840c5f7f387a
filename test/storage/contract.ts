import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type tap from 'tap';
import { keepRenewed, LockTimeoutError, type LockOptions } from '../../lib/coordination/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { waitFor } from '../helpers/wait.js';

/** The test object tap hands to a subtest callback (plugins included). */
export type Tap = Parameters<Parameters<typeof tap.test>[0]>[0];
/** Builds a fresh storage for one subtest; it may use `t.testdir()` and friends. */
export type MakeStorage = (t: Tap) => Storage | Promise<Storage>;

/**
 * What every `Storage` back end must do, run against each of them (in the spirit of Keyv's own
 * test-suite package). Every subtest gets its own storage, closed at teardown, and its own
 * namespaces and keys, so shared back ends (Redis) may keep data between subtests harmlessly.
 */
export function runStorageContract(t: Tap, name: string, makeStorage: MakeStorage) {
  const open = async (t: Tap): Promise<Storage> => {
    const storage = await makeStorage(t);
    t.teardown(() => storage.close());
    return storage;
  };

  return t.test(`${name}: storage contract`, async (t) => {
    t.test('set, get, has, delete', async (t) => {
      const kv = (await open(t)).keyv('basic');
      t.equal(await kv.get('missing'), undefined);
      t.equal(await kv.has('missing'), false);
      t.equal(await kv.set('a', { x: 1 }), true);
      t.same(await kv.get('a'), { x: 1 });
      t.equal(await kv.has('a'), true);
      await kv.set('a', { x: 2 });
      t.same(await kv.get('a'), { x: 2 }, 'overwrite replaces');
      t.equal(await kv.delete('a'), true);
      t.equal(await kv.get('a'), undefined);
      t.equal(await kv.has('a'), false);
      // Falsy values are values, not absences.
      for (const [key, value] of [
        ['zero', 0],
        ['empty', ''],
        ['no', false],
        ['nil', null],
      ] as const) {
        await kv.set(key, value);
        t.equal(await kv.get(key), value, `${String(value)} round-trips`);
        t.equal(await kv.has(key), true, `${String(value)} is present`);
      }
    });

    t.test('getMany, setMany, deleteMany', async (t) => {
      const kv = (await open(t)).keyv('many');
      await kv.setMany([
        { key: 'a', value: 'A' },
        { key: 'b', value: { b: true } },
        { key: 'c', value: [3] },
      ]);
      t.same(await kv.getMany(['a', 'missing', 'b', 'c']), ['A', undefined, { b: true }, [3]]);
      await kv.deleteMany(['a', 'b']);
      t.same(await kv.getMany(['a', 'b', 'c']), [undefined, undefined, [3]]);
      t.same(await kv.getMany([]), [], 'an empty batch is fine');
    });

    t.test('namespaces are isolated; the same namespace is the same data', async (t) => {
      const storage = await open(t);
      const a = storage.keyv<string>('iso-a');
      const b = storage.keyv<string>('iso-b');
      // A namespace that is a prefix of another must not see the other's keys.
      const a2 = storage.keyv<string>('iso-a2');
      await a.set('k', 'A');
      await b.set('k', 'B');
      t.equal(await a.get('k'), 'A');
      t.equal(await b.get('k'), 'B');
      t.equal(await a2.get('k'), undefined);
      await a.set('only-a', 'x');
      t.equal(await b.has('only-a'), false);
      t.same(await b.getMany(['only-a', 'k']), [undefined, 'B']);
      await a.delete('k');
      t.equal(await b.get('k'), 'B', 'deleting in one namespace leaves the other');
      await storage.keyv<string>('iso-a').set('again', 'same');
      t.equal(await a.get('again'), 'same', 'keyv(ns) twice reaches the same data');
    });

    t.test('clear empties one namespace only', async (t) => {
      const storage = await open(t);
      const a = storage.keyv('clear-a');
      const b = storage.keyv('clear-b');
      await a.setMany([
        { key: '1', value: 1 },
        { key: '2', value: 2 },
      ]);
      await b.set('1', 'kept');
      await a.clear();
      t.same(await a.getMany(['1', '2']), [undefined, undefined]);
      t.equal(await b.get('1'), 'kept');
    });

    t.test('entries expire after their ttl', async (t) => {
      // Long enough that a loaded machine still reads the entry before it lapses.
      const kv = (await open(t)).keyv('ttl');
      await kv.set('short', 'v', 1_000);
      await kv.set('long', 'v');
      await kv.setMany([
        { key: 'batch-short', value: 1, ttl: 1_000 },
        { key: 'batch-long', value: 2 },
      ]);
      t.equal(await kv.get('short'), 'v');
      t.equal(await kv.has('short'), true);
      await sleep(1_200);
      t.equal(await kv.has('short'), false, 'has sees expiry');
      t.equal(await kv.get('short'), undefined, 'get sees expiry');
      t.equal(await kv.get('long'), 'v');
      t.same(await kv.getMany(['batch-short', 'batch-long']), [undefined, 2]);
    });

    t.test('nested objects, unicode and awkward keys survive', async (t) => {
      const kv = (await open(t)).keyv('shapes');
      const value = {
        nested: { list: [1, { deep: 'ü 漢字 🎉 \u0000 "quoted" \\ \n' }], empty: {}, none: null },
        big: 'x'.repeat(100_000),
        number: -1.5e-7,
      };
      const keys = ['ключ-🔑', 'with:colons::too', 'spaces and "quotes"', 'glob*?[chars]', '%_sql_like'];
      for (const key of keys) await kv.set(key, value);
      for (const key of keys) t.same(await kv.get(key), value, `key ${key}`);
      t.same(
        await kv.getMany(keys),
        keys.map(() => value),
      );
    });

    t.test('10,000-key setMany then getMany round-trips', async (t) => {
      const kv = (await open(t)).keyv<{ i: number; s: string }>('bulk');
      const entries = Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: { i, s: `value ${i} ✓` } }));
      let start = performance.now();
      await kv.setMany(entries);
      const setMs = performance.now() - start;
      start = performance.now();
      const values = await kv.getMany(entries.map((entry) => entry.key));
      const getMs = performance.now() - start;
      const wrong = entries.filter((entry, i) => values[i]?.i !== entry.value.i || values[i]?.s !== entry.value.s);
      t.equal(values.length, entries.length);
      t.equal(wrong.length, 0, 'every value comes back');
      t.comment(`${name}: setMany 10k ${setMs.toFixed(0)} ms, getMany 10k ${getMs.toFixed(0)} ms`);
      await kv.clear();
      t.equal(await kv.get('k9999'), undefined, 'clear removes the batch');
    });

    t.test('iterator lists one namespace', async (t) => {
      const storage = await open(t);
      const kv = storage.keyv<number>('iter');
      await storage.keyv('iter-other').set('x', 0);
      await kv.setMany(Array.from({ length: 250 }, (_, i) => ({ key: `i${i}`, value: i })));
      await kv.set('gone', -1, 50);
      await sleep(120);
      t.ok(kv.iterator, 'the store is iterable');
      const seen = new Map<string, number>();
      for await (const [key, value] of kv.iterator?.(undefined) ?? []) seen.set(key, value);
      t.equal(seen.size, 250, 'all live keys, none from elsewhere, no expired ones');
      t.equal(seen.get('i249'), 249);
    });

    /** `n` callers of `withLock` at once, each a read, a yield and a write of one counter. */
    const contend = async (coordinator: Storage['coordinator'], key: string, n: number, options: LockOptions) => {
      let counter = 0;
      let inside = 0;
      let maxInside = 0;
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          coordinator.withLock(
            key,
            async () => {
              maxInside = Math.max(maxInside, ++inside);
              // Read, yield, write: loses updates unless the lock really excludes.
              const seen = counter;
              await sleep(1);
              counter = seen + 1;
              inside--;
              return i;
            },
            { waitMs: 30_000, ...options },
          ),
        ),
      );
      return { counter, maxInside, results };
    };

    t.test('withLock excludes 50 concurrent callers', async (t) => {
      const { coordinator } = await open(t);
      const { counter, maxInside, results } = await contend(coordinator, 'mutex', 50, {});
      t.equal(counter, 50);
      t.equal(maxInside, 1);
      t.same(
        results,
        Array.from({ length: 50 }, (_, i) => i),
        'withLock returns what fn returns',
      );
    });

    t.test('withLock releasing in the background answers first and still excludes', async (t) => {
      const { coordinator } = await open(t);
      const { counter, maxInside, results } = await contend(coordinator, 'background', 20, {
        releaseInBackground: true,
      });
      t.equal(counter, 20);
      t.equal(maxInside, 1, 'one holder at a time');
      t.same(
        results,
        Array.from({ length: 20 }, (_, i) => i),
      );
      // The last release was sent before withLock answered: the lock comes free without its ttl.
      const lease = await waitFor(
        async () => (await coordinator.tryLock('background', 1000)) ?? undefined,
        'the lock to come free',
        2_000,
      );
      t.ok(lease, 'free again, long before the 10 s ttl');
      await lease?.release();
    });

    t.test("withLock's read sees the last holder's write, with 30 callers at once", async (t) => {
      const storage = await open(t);
      const kv = storage.keyv<number>('lock-read');
      await kv.set('counter', 0);
      let reads = 0;
      await Promise.all(
        Array.from({ length: 30 }, () =>
          storage.coordinator.withLock(
            'lock-read',
            async (seen) => {
              // Read (by withLock), yield, write: loses updates if a read from an attempt that
              // did not take the lock were used.
              await sleep(1);
              await kv.set('counter', (seen ?? 0) + 1);
            },
            {
              waitMs: 30_000,
              releaseInBackground: true,
              read: async () => {
                reads++;
                return kv.get('counter');
              },
            },
          ),
        ),
      );
      t.equal(await kv.get('counter'), 30, 'no update lost');
      // Where reads are ordered, one is sent behind each caller's first attempt, and one more by
      // each caller that found the lock held; elsewhere one by each caller once it holds the lock.
      if (storage.coordinator.ordersReads) t.ok(reads > 30 && reads <= 60, `${reads} reads for 30 callers`);
      else t.equal(reads, 30, 'a read once the lock is held, by each caller');
    });

    t.test('withLock releases when fn throws', async (t) => {
      const { coordinator } = await open(t);
      await t.rejects(
        coordinator.withLock('throws', async () => Promise.reject(new Error('boom'))),
        { message: 'boom' },
      );
      const lease = await coordinator.tryLock('throws', 1000);
      t.ok(lease, 'the lock is free again');
      await lease?.release();
    });

    t.test('a lock expires after its ttl', async (t) => {
      const { coordinator } = await open(t);
      const first = await coordinator.tryLock('expiring', 100);
      t.ok(first);
      t.equal(await coordinator.tryLock('expiring', 100), null, 'held');
      await sleep(250);
      const second = await coordinator.tryLock('expiring', 5000);
      t.ok(second, 'free after ttl');
      await second?.release();
    });

    t.test('release by a non-holder does nothing', async (t) => {
      const { coordinator } = await open(t);
      const stale = await coordinator.tryLock('stolen', 100);
      t.ok(stale);
      await sleep(250);
      const holder = await coordinator.tryLock('stolen', 5000);
      t.ok(holder, 'taken over after expiry');
      await stale?.release();
      t.equal(await coordinator.tryLock('stolen', 5000), null, 'the stale lease did not free it');
      await holder?.release();
      await holder?.release();
      const next = await coordinator.tryLock('stolen', 5000);
      t.ok(next, 'the holder did; releasing twice is harmless');
      await next?.release();
    });

    t.test('a renewed lock outlives its first ttl; a lapsed one cannot be renewed', async (t) => {
      const { coordinator } = await open(t);
      const holder = await coordinator.tryLock('renewed', 200);
      t.ok(holder);
      await sleep(120);
      t.equal(await holder?.renew(400), true, 'renewed while held');
      await sleep(180);
      t.equal(await coordinator.tryLock('renewed', 5000), null, 'still held past the first ttl');
      await sleep(350);
      const next = await coordinator.tryLock('renewed', 5000);
      t.ok(next, 'free once the renewed ttl ran out');
      t.equal(await holder?.renew(5000), false, 'the old holder cannot renew it back');
      t.equal(await coordinator.tryLock('renewed', 5000), null, 'the new holder still has it');
      await next?.release();
      t.equal(await next?.renew(5000), false, 'nor can a holder renew after releasing');
      const again = await coordinator.tryLock('renewed', 5000);
      t.ok(again, 'released is free');
      await again?.release();
    });

    t.test('a lease kept renewed is held past many ttls; once renewing stops it lapses within one', async (t) => {
      const { coordinator } = await open(t);
      const lease = await coordinator.tryLock('kept', 400);
      t.ok(lease);
      const lost: string[] = [];
      const stop = keepRenewed(lease as NonNullable<typeof lease>, 400, (reason) => lost.push(reason));
      await sleep(1_500);
      t.equal(await coordinator.tryLock('kept', 5000), null, 'held at nearly 4× its ttl');
      // A holder that crashes stops renewing too.
      stop();
      await sleep(700);
      const next = await coordinator.tryLock('kept', 5000);
      t.ok(next, 'free within a ttl once renewing stopped');
      t.same(lost, [], 'never reported lost');
      await next?.release();
    });

    t.test('a lapsed lock that nobody took cannot be renewed either', async (t) => {
      const { coordinator } = await open(t);
      const holder = await coordinator.tryLock('lapsed', 100);
      await sleep(250);
      t.equal(await holder?.renew(5000), false, 'expired: not renewed');
      const next = await coordinator.tryLock('lapsed', 5000);
      t.ok(next, 'and it stays free for others');
      await next?.release();
    });

    t.test('increment is atomic', async (t) => {
      const { coordinator } = await open(t);
      const values = await Promise.all(Array.from({ length: 100 }, () => coordinator.increment('hits')));
      t.same(
        [...values].sort((x, y) => x - y),
        Array.from({ length: 100 }, (_, i) => i + 1),
        'each caller sees its own value',
      );
      t.equal(await coordinator.increment('hits', 5), 105);
      t.equal(await coordinator.increment('other'), 1, 'counters are per key');
    });

    t.test('withLock throws LockTimeoutError once waitMs passes', async (t) => {
      const { coordinator } = await open(t);
      const holder = await coordinator.tryLock('busy', 5000);
      t.ok(holder);
      let ran = false;
      const started = Date.now();
      const error = await coordinator
        .withLock(
          'busy',
          async () => {
            ran = true;
          },
          { waitMs: 150 },
        )
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      t.ok(error instanceof LockTimeoutError, 'a LockTimeoutError');
      t.equal(ran, false, 'fn never ran');
      t.ok(Date.now() - started >= 150, 'it waited first');
      await holder?.release();
    });

    t.test('ordered index: pages in order, both ways, from a cursor', async (t) => {
      const index = (await open(t)).index('ordered');
      const ids = Array.from({ length: 25 }, (_, i) => `id-${String(i).padStart(2, '0')}`);
      // Added out of order, one tie on the order broken by id, one id added twice (it moves).
      await index.addMany(ids.slice(10).map((id, i) => ({ list: 'all', id, order: 1000 + 10 + i })));
      for (const [i, id] of ids.slice(0, 10).entries()) await index.add('all', id, 1000 + i);
      await index.add('all', 'id-24', 5000);
      await index.add('all', 'id-24b', 5000);
      await index.add('other', 'id-00', 1);
      t.equal(await index.count('all'), 26);
      const walk = async (reverse: boolean) => {
        const seen: string[] = [];
        let after;
        for (;;) {
          const page = await index.page('all', 7, after, reverse);
          seen.push(...page.map((p) => p.id));
          if (page.length < 7) return seen;
          after = page.at(-1);
        }
      };
      const expected = [...ids, 'id-24b'];
      t.same(await walk(false), expected, 'ascending, every id once');
      t.same(await walk(true), [...expected].reverse(), 'descending');
      t.same(
        (await index.page('other', 10)).map((p) => p.id),
        ['id-00'],
        'lists are separate',
      );
      t.same(await index.page('none', 10), [], 'an unknown list is empty');
    });

    t.test('ordered index: remove, move, and a cursor whose entry went away', async (t) => {
      const index = (await open(t)).index('ordered-moves');
      for (let i = 0; i < 10; i++) await index.add('l', `k${i}`, 100 + i);
      const first = await index.page('l', 3);
      t.same(
        first.map((p) => p.id),
        ['k0', 'k1', 'k2'],
      );
      t.same(first[0], { id: 'k0', order: 100 }, 'positions carry the order');
      await index.remove('l', 'k2');
      await index.remove('l', 'k3');
      t.same(
        (await index.page('l', 2, first.at(-1))).map((p) => p.id),
        ['k4', 'k5'],
        'continues past a removed cursor',
      );
      await index.add('l', 'k0', 200);
      t.same(
        (await index.page('l', 20)).map((p) => p.id),
        ['k1', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'k0'],
        'adding again moves',
      );
      await index.remove('l', 'missing');
      t.equal(await index.count('l'), 8);
    });

    t.test('ordered index: a keyed list (order 0) seeks to any string, both ways', async (t) => {
      const index = (await open(t)).index('ordered-keyed');
      const ids = ['ab\u0001x', 'abc\u0001y', 'abd\u0001x', 'b\u0001z', 'é\u0001x', 'a\u0001z'];
      await index.addMany(ids.map((id) => ({ list: 'k', id, order: 0 })));
      const from = async (at: string, limit: number, reverse = false) =>
        (await index.page('k', limit, { order: 0, id: at }, reverse)).map((p) => p.id);
      t.same(await from('ab', 10), ['ab\u0001x', 'abc\u0001y', 'abd\u0001x', 'b\u0001z', 'é\u0001x'], 'from a prefix');
      t.same(await from('abc', 1), ['abc\u0001y'], 'a prefix that is no entry');
      t.same(await from('abc\u0001y', 2), ['abd\u0001x', 'b\u0001z'], 'from an entry');
      t.same(await from('abd', 10, true), ['abc\u0001y', 'ab\u0001x', 'a\u0001z'], 'below a prefix, descending');
      t.same(await from('z', 10), ['é\u0001x'], 'bytes order: é after z');
      t.same((await index.page('k', 2))[0], { order: 0, id: 'a\u0001z' }, 'the first entry');
    });
  });
}
