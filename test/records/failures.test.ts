import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createRecordStore } from '../../lib/records/index.js';
import { ids, many, page, readAll, refOf } from './contract.js';

/**
 * A storage whose records namespace fails the n-th `setMany` from now: the way a Redis outage
 * or a full disk interrupts a write between two of its steps.
 */
function faultyStorage() {
  const storage = createMemoryStorage();
  const kv = storage.keyv<string>('records');
  const setMany = kv.setMany.bind(kv);
  let countdown = 0;
  let headCountdown = 0;
  kv.setMany = async (entries) => {
    if (countdown > 0 && --countdown === 0) throw new Error('storage went away');
    return setMany(entries);
  };
  // On the memory store Keyv's setMany goes through set(), so this sees every head write.
  const set = kv.set.bind(kv);
  kv.set = async (key, value, ttl) => {
    if (key.endsWith(':h') && headCountdown > 0 && --headCountdown === 0) throw new Error('storage went away');
    return set(key, value, ttl);
  };
  return {
    storage,
    failSetMany(nth: number) {
      countdown = nth;
    },
    failHeadWrite(nth: number) {
      headCountdown = nth;
    },
  };
}

// A step writes: (1) head + log chunks, one setMany; (2) records, one setMany; (3) the head (set).
t.test('a write that fails after the log, before the records, loses nothing', async (t) => {
  const faulty = faultyStorage();
  const store = createRecordStore({ storage: faulty.storage });
  t.teardown(() => faulty.storage.close());
  const ref = refOf();
  await store.batchSave(ref, many(10));
  faulty.failSetMany(2);
  await t.rejects(store.batchSave(ref, [...many(3, 0, { v: 2 }), ...many(2, 100)]), /storage went away/);
  const now = await readAll(store, ref);
  t.same(ids(now.records), ids(many(10)), 'readers still see every record, in its previous version');
  t.ok(now.records.every((r) => r.v === undefined));

  t.same(
    await store.batchSave(ref, [...many(3, 0, { v: 2 }), ...many(2, 100)]),
    { added: 2, updated: 3, unchanged: 0 },
    'the retry applies',
  );
  const after = await readAll(store, ref);
  t.equal(after.records.length, 12);
  t.same(ids((await page(store, ref, { cursor: now.last })).records), [
    'r000000',
    'r000001',
    'r000002',
    'r000100',
    'r000101',
  ]);
  t.equal(
    new Set(after.records.map((r) => r._service_metadata.cursor)).size,
    12,
    'no sequence number was handed out twice',
  );
});

t.test('a write that fails before its commit becomes visible at the next write, or on compact()', async (t) => {
  const faulty = faultyStorage();
  const store = createRecordStore({ storage: faulty.storage });
  t.teardown(() => faulty.storage.close());
  const ref = refOf();
  await store.batchSave(ref, many(10));
  const before = (await readAll(store, ref)).last;
  faulty.failHeadWrite(2);
  await t.rejects(store.batchSave(ref, many(2, 0, { v: 2 })), /storage went away/);
  t.same(await store.compact(ref), { removed: 0 });
  const changes = await page(store, ref, { cursor: before });
  t.same(ids(changes.records), ['r000000', 'r000001'], 'the written records are published, at new positions');
  t.equal(changes.records[0]!.v, 2);
  t.equal((await readAll(store, ref)).records.length, 10, 'nothing lost, nothing doubled');

  faulty.failHeadWrite(2);
  await t.rejects(store.batchSave(ref, many(1, 5, { v: 3 })), /storage went away/);
  await store.batchSave(ref, many(1, 50));
  const latest = await page(store, ref, { cursor: changes.records.at(-1)!._service_metadata.cursor });
  t.same(ids(latest.records), ['r000005', 'r000050'], 'the next write publishes the failed one too');
});
