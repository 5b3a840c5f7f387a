import { openStore, page, refOf, type MakeStorage, type Tap } from './contract.js';

type Row = Record<string, unknown>;
const byId = (records: readonly Row[]) => new Map(records.map((r) => [String(r.id), r]));

/** Batch updates and "latest cursor since", on every back end (run from the records contract). */
export function runUpdateContract(t: Tap, makeStorage: MakeStorage) {
  t.test('a batch update merges into stored records and skips missing and deleted ones', async (t) => {
    const { store, clock } = await openStore(t, makeStorage);
    const ref = refOf();
    await store.batchSave(ref, [
      { id: 'a', name: 'A', n: 1 },
      { id: 'b', name: 'B', n: 1 },
      { id: 'gone', n: 1 },
    ]);
    await store.batchDelete(ref, ['gone']);
    clock.now += 1000;
    t.same(
      await store.batchUpdate(ref, [
        { id: 'a', n: 2 },
        { id: 'b', n: 1 },
        { id: 'nope', n: 9 },
        { id: 'gone', n: 9 },
      ]),
      { added: 0, updated: 1, unchanged: 1 },
    );
    const rows = byId((await page(store, ref)).records as Row[]);
    t.match(
      rows.get('a'),
      { id: 'a', name: 'A', n: 2, _service_metadata: { last_action: 'UPDATED' } },
      'fields not named are kept',
    );
    t.match(
      rows.get('b'),
      { n: 1, _service_metadata: { last_action: 'ADDED' } },
      'an update that changes nothing is no change',
    );
    t.match(
      rows.get('gone'),
      { n: 1, _service_metadata: { last_action: 'DELETED' } },
      'a deleted record stays deleted',
    );
    t.notOk(rows.has('nope'), 'an update never creates a record');
    await t.rejects(store.batchUpdate(ref, [{ n: 1 }]), { code: 'invalid_request' }, 'a partial needs its id');
  });

  t.test('batch updates racing saves on the same stream lose nothing', async (t) => {
    const { store } = await openStore(t, makeStorage);
    const ref = refOf();
    const fields = 12;
    await store.batchSave(ref, [{ id: 'shared', base: true }]);
    // Each update sets its own field of the same record while saves add records to the stream:
    // an update that read the record outside the stream's lock would write back a stale copy.
    await Promise.all(
      Array.from({ length: fields }, (_, i) => [
        store.batchUpdate(ref, [{ id: 'shared', [`f${i}`]: i }]),
        store.batchSave(ref, [{ id: `saved-${i}`, i }]),
      ]).flat(),
    );
    const rows = byId((await page(store, ref, { limit: 1000 })).records as Row[]);
    const shared = rows.get('shared') ?? {};
    const missing = Array.from({ length: fields }, (_, i) => `f${i}`).filter((f) => !(f in shared));
    t.same(missing, [], "every update's field is there");
    t.equal(shared.base, true);
    t.equal([...rows.keys()].filter((id) => id.startsWith('saved-')).length, fields, 'every save is there');
  });

  t.test('the latest cursor since a time', async (t) => {
    const { store, clock } = await openStore(t, makeStorage);
    const ref = refOf();
    t.equal(await store.latestCursorSince(ref, new Date(0)), null, 'an empty stream has none');
    await store.batchSave(ref, [{ id: 'a' }, { id: 'b' }]);
    const since = new Date(clock.now);
    t.equal(await store.latestCursorSince(ref, since), null, 'nothing modified after');
    clock.now += 1000;
    await store.batchSave(
      ref,
      Array.from({ length: 1500 }, (_, i) => ({ id: `n${i}` })),
    );
    await store.batchUpdate(ref, [{ id: 'a', v: 2 }]);
    const all = (await page(store, ref, { limit: 1000, modifiedAfter: since })).next_cursor;
    t.ok(all, 'more than one page changed');
    const last = (await page(store, ref, { ids: ['a'] })).records[0]?._service_metadata.cursor;
    t.equal(await store.latestCursorSince(ref, since), last, 'the cursor of the newest change, across pages');
  });
}
