import { setImmediate as tick } from 'node:timers/promises';
import { runUpdateContract } from './contract-update.js';
import { ids, many, openStore, page, readAll, refOf, T0, type MakeStorage, type Tap } from './contract.js';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

/**
 * What the records store must do on every storage back end (memory, SQLite, Redis): the same
 * assertions against each, in the spirit of Keyv's shared adapter test suite.
 */
export function runRecordStoreContract(t: Tap, name: string, makeStorage: MakeStorage) {
  return t.test(`${name}: records store contract`, async (t) => {
    t.test('save, read back in order, with spec 2.2 metadata', async (t) => {
      const { store } = await openStore(t, makeStorage);
      const ref = refOf();
      t.same(
        await store.batchSave(ref, [
          { id: 1, title: 'one' },
          { id: 'two', title: 'two', nested: { a: [1, 2] } },
        ]),
        { added: 2, updated: 0, unchanged: 0 },
      );
      const p = await page(store, ref);
      t.same(ids(p.records), [1, 'two'], 'ids keep their type; order of saving');
      t.equal(p.next_cursor, null, 'the last page says so with a null next_cursor');
      const [first, second] = p.records as Record<string, any>[];
      t.same(first!.title, 'one');
      t.same(second!.nested, { a: [1, 2] });
      const meta = first!._service_metadata;
      t.same(Object.keys(meta).sort(), [
        'cursor',
        'deleted_at',
        'first_seen_at',
        'last_action',
        'last_modified_at',
        'pruned_at',
      ]);
      t.equal(meta.last_action, 'ADDED');
      t.equal(meta.deleted_at, null);
      t.equal(meta.pruned_at, null);
      t.match(meta.first_seen_at, ISO_WITH_OFFSET);
      t.equal(Date.parse(meta.last_modified_at), T0);
      t.match(meta.cursor, /^[A-Za-z0-9_-]+$/, 'base64url');
      t.not(
        meta.cursor,
        second!._service_metadata.cursor,
        'two records saved in the same millisecond have distinct cursors',
      );
    });

    t.test('identical saves change nothing; changes move the record to the end', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, [
        { id: 'a', v: 1, deep: { x: 1, y: 2 } },
        { id: 'b', v: 1 },
        { id: 'c', v: 1 },
      ]);
      const before = await readAll(store, ref);
      clock.now += 1000;
      t.same(
        await store.batchSave(ref, [
          { deep: { y: 2, x: 1 }, v: 1, id: 'a' },
          { id: 'b', v: 1 },
        ]),
        { added: 0, updated: 0, unchanged: 2 },
        'key order does not make a change',
      );
      t.same((await page(store, ref, { cursor: before.last })).records, [], 'no new cursor for an unchanged record');
      t.same(
        await store.batchSave(ref, [
          { id: 'a', v: 2, deep: { x: 1, y: 2 } },
          { id: 'd', v: 1 },
        ]),
        { added: 1, updated: 1, unchanged: 0 },
      );
      const after = await page(store, ref, { cursor: before.last });
      t.same(ids(after.records), ['a', 'd'], 'only the changes, in modification order');
      const a = after.records[0] as Record<string, any>;
      t.equal(a.v, 2);
      t.equal(a._service_metadata.last_action, 'UPDATED');
      t.equal(Date.parse(a._service_metadata.first_seen_at), T0, 'first_seen_at is kept');
      t.equal(Date.parse(a._service_metadata.last_modified_at), T0 + 1000);
      t.same(ids((await page(store, ref)).records), ['b', 'c', 'a', 'd'], 'whole stream ordered by modification');
      t.same(
        await store.batchSave(ref, [
          { id: 'x', v: 1 },
          { id: 'x', v: 2 },
        ]),
        { added: 1, updated: 0, unchanged: 0 },
        'the last of repeated ids wins',
      );
      t.equal(((await page(store, ref, { ids: ['x'] })).records[0] as Record<string, any>).v, 2);
    });

    t.test('ties at identical timestamps: limit 1 pages through each exactly once', async (t) => {
      const { store } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(25));
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const p = await page(store, ref, { limit: 1, cursor });
        seen.push(...ids(p.records));
        if (!p.next_cursor) break;
        cursor = p.next_cursor;
      }
      t.same(seen, ids(many(25)), 'all 25 share one last_modified_at and none is skipped or repeated');
      const all = await page(store, ref, { limit: 100 });
      t.equal(new Set(all.records.map((r) => r._service_metadata.last_modified_at)).size, 1);
      const middle = all.records[11]!._service_metadata.cursor;
      t.same(
        ids((await page(store, ref, { cursor: middle, limit: 3 })).records),
        ['r000012', 'r000013', 'r000014'],
        'resumes exactly after the record it came from',
      );
      t.same(
        (await page(store, ref, { modifiedAfter: new Date(T0) })).records,
        [],
        'modified_after cannot split a tie; the cursor can',
      );
    });

    t.test('limit, next_cursor and the last page', async (t) => {
      const { store } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(250));
      const first = await page(store, ref);
      t.equal(first.records.length, 100, 'default limit 100');
      t.equal(first.next_cursor, first.records[99]!._service_metadata.cursor);
      const exact = await page(store, ref, { limit: 250 });
      t.equal(exact.records.length, 250);
      t.equal(exact.next_cursor, null, 'a page that ends exactly at the last record is the last page');
      t.equal((await readAll(store, ref, { limit: 7 })).records.length, 250);
    });

    t.test('soft deletes, un-deletes and full-refresh deletes', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(5));
      const mark = (await readAll(store, ref)).last;
      clock.now += 10;
      t.same(await store.batchDelete(ref, ['r000001', { id: 'r000002' }, 'nope']), {
        deleted: 2,
        alreadyDeleted: 0,
        missing: 1,
      });
      t.same(
        await store.batchDelete(ref, ['r000001']),
        { deleted: 0, alreadyDeleted: 1, missing: 0 },
        'deleting twice is no change',
      );
      const changes = await page(store, ref, { cursor: mark });
      t.same(ids(changes.records), ['r000001', 'r000002']);
      const gone = changes.records[0] as Record<string, any>;
      t.equal(gone._service_metadata.last_action, 'DELETED');
      t.equal(Date.parse(gone._service_metadata.deleted_at), T0 + 10);
      t.equal(gone.n, 1, 'the record is kept, payload included');
      t.same(ids((await page(store, ref, { filter: ['deleted'] })).records), ['r000001', 'r000002']);

      clock.now += 10;
      t.same(
        await store.batchSave(ref, [{ id: 'r000001', n: 1 }]),
        { added: 1, updated: 0, unchanged: 0 },
        'saving a deleted record brings it back as added',
      );
      const back = (await page(store, ref, { ids: ['r000001'] })).records[0]!;
      t.equal(back._service_metadata.last_action, 'ADDED');
      t.equal(back._service_metadata.deleted_at, null);
      t.equal(Date.parse(back._service_metadata.first_seen_at), T0, 'first_seen_at survives the round trip');

      // A full-refresh run sees only some records; the rest are deleted.
      clock.now += 10;
      const runStarted = new Date(clock.now);
      await store.batchSave(ref, [
        { id: 'r000000', n: 0 },
        { id: 'r000003', n: 3, changed: true },
      ]);
      t.same(
        await store.deleteNotSeenSince(ref, runStarted),
        { deleted: 2 },
        'r000001 and r000004 were not seen (r000002 is already deleted)',
      );
      const state = Object.fromEntries(
        (await readAll(store, ref)).records.map((r) => [r.id, r._service_metadata.last_action]),
      );
      t.same(state, {
        r000000: 'ADDED',
        r000001: 'DELETED',
        r000002: 'DELETED',
        r000003: 'UPDATED',
        r000004: 'DELETED',
      });
      t.same(await store.deleteNotSeenSince(ref, runStarted), { deleted: 0 }, 'running it again changes nothing');
    });

    t.test('filters, modified_after and ids, alone and combined', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(6));
      clock.now += 100;
      await store.batchSave(ref, [
        { id: 'r000001', n: 'changed' },
        { id: 'r000002', n: 'changed' },
      ]);
      clock.now += 100;
      await store.batchDelete(ref, ['r000003']);
      const actions = async (options: Parameters<typeof page>[2]) => ids((await page(store, ref, options)).records);
      t.same(await actions({ filter: ['added'] }), ['r000000', 'r000004', 'r000005']);
      t.same(await actions({ filter: ['updated'] }), ['r000001', 'r000002']);
      t.same(await actions({ filter: ['deleted'] }), ['r000003']);
      t.same(
        await actions({ filter: ['updated', 'deleted'] }),
        ['r000001', 'r000002', 'r000003'],
        'several filters: the union',
      );
      t.same(await actions({ filter: ['added', 'updated', 'deleted'] }), await actions({}));
      t.same(await actions({ modifiedAfter: new Date(T0) }), ['r000001', 'r000002', 'r000003']);
      t.same(await actions({ modifiedAfter: new Date(T0 + 100) }), ['r000003']);
      t.same(await actions({ modifiedAfter: new Date(T0 + 99) }), ['r000001', 'r000002', 'r000003']);
      t.same(await actions({ modifiedAfter: new Date(T0 + 200) }), []);
      t.same(await actions({ modifiedAfter: new Date(T0), filter: ['updated'] }), ['r000001', 'r000002']);
      t.same(
        await actions({ ids: ['r000005', 'r000001', 'missing', 'r000003'] }),
        ['r000005', 'r000001', 'r000003'],
        'ids come in modification order; unknown ids are left out',
      );
      t.same(await actions({ ids: ['r000005', 'r000001', 'r000003'], filter: ['added', 'deleted'] }), [
        'r000005',
        'r000003',
      ]);
      t.same(await actions({ ids: ['r000005', 'r000001', 'r000003'], modifiedAfter: new Date(T0) }), [
        'r000001',
        'r000003',
      ]);
      const cursor = (await page(store, ref, { ids: ['r000001'] })).records[0]!._service_metadata.cursor;
      t.same(await actions({ cursor }), ['r000002', 'r000003']);
      t.same(await actions({ cursor, filter: ['deleted'] }), ['r000003']);
      t.same(await actions({ cursor, ids: ['r000000', 'r000003'] }), ['r000003']);
      const limited = await page(store, ref, { filter: ['added'], limit: 2 });
      t.same(ids(limited.records), ['r000000', 'r000004']);
      t.same(
        await actions({ filter: ['added'], cursor: limited.next_cursor! }),
        ['r000005'],
        "a filtered page's next_cursor continues the filtered list",
      );
      const byIds = await page(store, ref, { ids: ['r000000', 'r000004', 'r000005'], limit: 2 });
      t.same(
        ids((await page(store, ref, { ids: ['r000000', 'r000004', 'r000005'], cursor: byIds.next_cursor! })).records),
        ['r000005'],
      );
    });

    t.test('pruning by age and by cursor keeps ids and metadata', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(4, 0, { secret: 'payload' }));
      clock.now += 1000;
      await store.batchSave(ref, many(2, 10, { secret: 'payload' }));
      const end = (await readAll(store, ref)).last;
      clock.now += 1000;
      t.same(await store.prune(ref, { before: new Date(T0 + 1) }), { ok: true, pruned: 4 });
      const pruned = (await page(store, ref, { ids: ['r000000'] })).records[0]!;
      t.same(Object.keys(pruned).sort(), ['_service_metadata', 'id'], 'payload gone, id kept');
      t.equal(Date.parse(pruned._service_metadata.pruned_at!), T0 + 2000);
      t.equal(pruned._service_metadata.last_action, 'ADDED', 'metadata kept');
      t.same((await page(store, ref, { cursor: end })).records, [], 'pruning is no change: no new cursor');
      t.same(
        await store.prune(ref, { before: new Date(T0 + 1) }),
        { ok: true, pruned: 0 },
        'pruning twice prunes nothing more',
      );

      const fifth = (await page(store, ref, { ids: ['r000010'] })).records[0]!._service_metadata.cursor;
      t.same(await store.prune(ref, { cursor: fifth }), { ok: true, pruned: 1 }, 'by cursor: up to and including it');
      t.equal(
        (await page(store, ref, { ids: ['r000011'] })).records[0]!.secret,
        'payload',
        'later records keep their payload',
      );
      t.same(await store.prune(ref, { cursor: 'garbage' }), { ok: false, reason: 'undecodable_cursor' });

      clock.now += 1000;
      t.same(
        await store.batchSave(ref, many(1, 0, { secret: 'payload' })),
        { added: 0, updated: 1, unchanged: 0 },
        'saving a pruned record brings its payload back',
      );
      const restored = (await page(store, ref, { cursor: end })).records;
      t.same(ids(restored), ['r000000']);
      t.equal(restored[0]!.secret, 'payload');
      t.equal(restored[0]!._service_metadata.pruned_at, null);
    });

    t.test('streams are isolated: connection, integration, environment, model, variant', async (t) => {
      const { store } = await openStore(t, makeStorage);
      const base = refOf();
      const others = [
        refOf({ connectionId: 'conn-2' }),
        refOf({ providerConfigKey: 'gitlab' }),
        refOf({ environment: 'prod' }),
        refOf({ model: 'PullRequest' }),
        refOf({ variant: 'archived' }),
      ];
      await store.batchSave(base, [{ id: 'mine', secret: 1 }]);
      const cursor = (await page(store, base)).records[0]!._service_metadata.cursor;
      for (const ref of others) {
        t.same((await page(store, ref)).records, [], `nothing leaks to ${JSON.stringify(ref)}`);
        t.same((await page(store, ref, { ids: ['mine'] })).records, []);
        t.same(
          await store.list(ref, { cursor }),
          { ok: false, reason: 'foreign_cursor' },
          "another stream's cursor is refused",
        );
        await store.batchSave(ref, [{ id: 'mine', other: true }]);
      }
      t.same(
        (await page(store, refOf({ variant: 'base' }))).records.map((r) => r.secret),
        [1],
        'variant "base" is the default variant',
      );
      t.same(await store.list(base, { cursor: 'not a cursor!' }), { ok: false, reason: 'undecodable_cursor' });
      t.same(await store.list(base, { cursor: Buffer.from('{"seq":1}').toString('base64') }), {
        ok: false,
        reason: 'undecodable_cursor',
      });
      t.equal((await page(store, base)).records.length, 1, "the others' saves did not touch this stream");
    });

    t.test('a record updated while a client pages appears again later', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }]);
      const first = await page(store, ref, { limit: 2 });
      t.same(ids(first.records), ['a', 'b']);
      clock.now += 5;
      await store.batchSave(ref, [
        { id: 'a', v: 2 },
        { id: 'd', v: 2 },
      ]);
      const rest = await readAll(store, ref, { cursor: first.next_cursor!, limit: 2 });
      t.same(ids(rest.records), ['c', 'a', 'd'], 'a again (already read, now changed); d once, in its new version');
      t.same(
        rest.records.map((r) => r.v ?? 1),
        [1, 2, 2],
      );
    });

    t.test('paging while writes happen skips nothing', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(300));
      let writing = true;
      let round = 0;
      const writer = (async () => {
        for (; round < 30; round++) {
          clock.now += 1;
          // Rewrites a spread of old records and adds new ones.
          const changed = Array.from({ length: 20 }, (_, k) => ({
            id: `r${String((round * 37 + k * 13) % 300).padStart(6, '0')}`,
            n: -round,
          }));
          await store.batchSave(ref, [...changed, ...many(5, 1000 + round * 5)]);
          if (round % 7 === 0) await store.batchDelete(ref, [`r${String(round).padStart(6, '0')}`]);
          await tick();
        }
        writing = false;
      })();
      const latest = new Map<string, Record<string, any>>();
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const p = await page(store, ref, { limit: 17, cursor });
        pages++;
        for (const r of p.records) latest.set(r.id as string, r);
        if (p.records.length > 0) cursor = p.records.at(-1)!._service_metadata.cursor;
        if (p.next_cursor === null && !writing) break;
        await tick();
      }
      await writer;
      // One more pass from the last cursor: whatever changed after the final page.
      for (const r of (await readAll(store, ref, { cursor })).records) latest.set(r.id as string, r);
      const truth = (await readAll(store, ref)).records;
      t.ok(pages > 5, 'several pages were read while the writer ran');
      t.equal(latest.size, truth.length, 'every record was seen');
      for (const r of truth) {
        if (JSON.stringify(latest.get(r.id as string)) !== JSON.stringify(r))
          t.fail(`record ${r.id as string} ended in a stale version`);
      }
    });

    t.test('paging while compaction rewrites the log skips nothing', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(3000));
      // Every other record changes: the first chunks become half dead, then get compacted.
      clock.now += 1;
      await store.batchSave(
        ref,
        many(3000)
          .filter((_, i) => i % 2 === 0)
          .map((r) => ({ ...r, v: 2 })),
      );
      const reading = readAll(store, ref, { limit: 50 });
      const [all] = await Promise.all([reading, store.compact(ref)]);
      t.equal(new Set(ids(all.records)).size, 3000, 'every record once, while chunks were merged underneath');
      t.equal(all.records.length, 3000);
      const stats = await store.stats(ref);
      t.equal(stats.deadEntries, 0, 'compaction ran');
      t.ok(stats.logEntries < 4500, `log shrank to ${stats.logEntries} entries`);
    });

    t.test('history does not grow the log: compaction keeps it proportional to the records', async (t) => {
      const { store, clock } = await openStore(t, makeStorage);
      const ref = refOf();
      await store.batchSave(ref, many(500));
      const start = (await readAll(store, ref)).last;
      for (let round = 1; round <= 12; round++) {
        clock.now += 1;
        await store.batchSave(ref, many(500, 0, { round }));
      }
      await store.compact(ref);
      const stats = await store.stats(ref);
      t.equal(stats.records, 500);
      t.ok(stats.logEntries <= 500 + 1000, `log holds ${stats.logEntries} entries for 500 records after 6,500 changes`);
      t.equal(stats.deadEntries, 0);
      const all = await readAll(store, ref, { limit: 64 });
      t.equal(all.records.length, 500, 'every record still reads after compaction');
      t.ok(
        all.records.every((r) => r.round === 12),
        'in its latest version',
      );
      t.equal((await readAll(store, ref, { cursor: start })).records.length, 500, 'an old cursor still resumes');
    });

    t.test('a batch of 10,000 saves, re-saves unchanged, and reads back', async (t) => {
      const { store } = await openStore(t, makeStorage);
      const ref = refOf();
      const batch = many(10_000, 0, { name: 'Record', tags: ['x', 'y'] });
      t.same(await store.batchSave(ref, batch), { added: 10_000, updated: 0, unchanged: 0 });
      t.same(await store.batchSave(ref, batch), { added: 0, updated: 0, unchanged: 10_000 });
      const { records } = await readAll(store, ref, { limit: 1000 });
      t.equal(records.length, 10_000);
      t.same(
        records.slice(0, 3).map((r) => r.n),
        [0, 1, 2],
      );
    });

    t.test('dropping a connection removes its records and nothing else', async (t) => {
      const { store } = await openStore(t, makeStorage);
      await store.batchSave(refOf(), many(3));
      await store.batchSave(refOf({ model: 'Comment', variant: 'v2' }), many(2));
      await store.batchSave(refOf({ connectionId: 'conn-2' }), many(4));
      t.same(await store.dropConnection('dev', 'github', 'conn-1'), { streams: 2, records: 5 });
      t.same((await page(store, refOf())).records, []);
      t.same((await page(store, refOf({ model: 'Comment', variant: 'v2' }))).records, []);
      t.equal((await page(store, refOf({ connectionId: 'conn-2' }))).records.length, 4);
      t.same(
        await store.batchSave(refOf(), many(1)),
        { added: 1, updated: 0, unchanged: 0 },
        'a re-created connection starts empty',
      );
    });

    t.test('bad input to the write API is refused and changes nothing', async (t) => {
      const { store } = await openStore(t, makeStorage);
      const ref = refOf();
      await t.rejects(store.batchSave(ref, [{ id: 'ok' }, { name: 'no id' }]), {
        code: 'invalid_request',
        details: { field: 'records[1].id' },
      });
      await t.rejects(store.batchSave(ref, [{ id: { nested: true } }]), { code: 'invalid_request' });
      await t.rejects(store.batchSave(ref, ['text']), { code: 'invalid_request' });
      await t.rejects(store.batchDelete(ref, [null]), { code: 'invalid_request' });
      t.same((await page(store, ref)).records, []);
      await store.batchSave(ref, [{ id: 'm', _service_metadata: { cursor: 'forged' } }]);
      t.not(
        (await page(store, ref)).records[0]!._service_metadata.cursor,
        'forged',
        'the store owns _service_metadata',
      );
    });

    runUpdateContract(t, makeStorage);
  });
}
