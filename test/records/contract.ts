import type tap from 'tap';
import { createRecordStore, type RecordStore, type StreamRef } from '../../lib/records/index.js';
import type { Storage } from '../../lib/storage/index.js';

export type Tap = Parameters<Parameters<typeof tap.test>[0]>[0];
export type MakeStorage = (t: Tap) => Storage | Promise<Storage>;

export const T0 = Date.parse('2026-01-05T10:00:00.000Z');

/** A store on a fresh storage with a clock the test moves; everything closed at teardown. */
export async function openStore(t: Tap, makeStorage: MakeStorage) {
  const storage = await makeStorage(t);
  const clock = { now: T0 };
  const store = createRecordStore({ storage, clock: () => clock.now });
  t.teardown(async () => {
    await store.close();
    await storage.close();
  });
  return { store, storage, clock };
}

export const refOf = (overrides: Partial<StreamRef> = {}): StreamRef => ({
  environment: 'dev',
  providerConfigKey: 'github',
  connectionId: 'conn-1',
  model: 'Issue',
  ...overrides,
});

/** Reads a page or fails the test on a cursor problem. */
export async function page(store: RecordStore, ref: StreamRef, options: Parameters<RecordStore['list']>[1] = {}) {
  const result = await store.list(ref, options);
  if (!result.ok) throw new Error(`unexpected cursor problem: ${result.reason}`);
  return result.page;
}

/** Every record from `cursor` on, following next_cursor; also the cursor of the last record. */
export async function readAll(store: RecordStore, ref: StreamRef, options: Parameters<RecordStore['list']>[1] = {}) {
  const records: Record<string, any>[] = [];
  let cursor = options.cursor;
  for (let pages = 0; pages < 100_000; pages++) {
    const p = await page(store, ref, { ...options, cursor });
    records.push(...p.records);
    if (p.next_cursor === null) break;
    assertCursorIsLast(p);
    cursor = p.next_cursor;
  }
  return { records, last: records.at(-1)?._service_metadata.cursor as string | undefined };
}

/** next_cursor is always the cursor of the page's last record. */
function assertCursorIsLast(p: { records: { _service_metadata: { cursor: string } }[]; next_cursor: string | null }) {
  if (p.next_cursor !== p.records.at(-1)?._service_metadata.cursor)
    throw new Error("next_cursor is not the last record's cursor");
}

export const ids = (records: readonly Record<string, any>[]) => records.map((r) => r.id);
export const many = (n: number, from = 0, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ id: `r${String(from + i).padStart(6, '0')}`, n: from + i, ...extra }));
