import type { Entry } from './layout.js';
import { readChunks, readHead, readRecords, scanLog, type RecordsKv } from './log.js';
import type { StoredRecord } from './stored.js';
import type { Stream } from './stream.js';
import { step, withStreamLock, type Changed, type WriterDeps } from './writer.js';

/** Log entries handled per locked step by the sweeps below. */
const SLICE = 2_000;

/**
 * Walks the log as it was when the sweep began (changes made by the sweep itself land above that
 * and are not revisited), handing live-looking entries to `apply` in slices; each slice re-reads
 * its records under the lock, so a concurrent save is never overwritten.
 */
async function sweep(
  kv: RecordsKv,
  stream: Stream,
  bounds: { until?: number; stopAt?: (entry: Entry) => boolean },
  apply: (entries: Entry[]) => Promise<number>,
): Promise<number> {
  const head = await readHead(kv, stream);
  if (!head) return 0;
  let total = 0;
  let slice: Entry[] = [];
  scan: for await (const entries of scanLog(kv, stream, head, {
    after: 0,
    ...(bounds.until === undefined ? {} : { until: bounds.until }),
  })) {
    for (const entry of entries) {
      if (bounds.stopAt?.(entry)) break scan;
      slice.push(entry);
      if (slice.length >= SLICE) {
        total += await apply(slice);
        slice = [];
      }
    }
  }
  if (slice.length > 0) total += await apply(slice);
  return total;
}

/** Entries whose record still sits at that position, with the record. */
async function liveOf(
  kv: RecordsKv,
  stream: Stream,
  entries: readonly Entry[],
): Promise<{ id: string; record: StoredRecord }[]> {
  const records = await readRecords(
    kv,
    stream,
    entries.map((e) => e[1]),
  );
  const out: { id: string; record: StoredRecord }[] = [];
  entries.forEach((entry, k) => {
    const record = records[k];
    if (record && record.q === entry[0]) out.push({ id: entry[1], record });
  });
  return out;
}

/**
 * Removes payloads, keeping ids and metadata (`pruned_at` set). Pruning is not a change of the
 * record: no new cursor, readers who already passed it do not meet it again.
 */
export function pruneStream(
  deps: WriterDeps,
  stream: Stream,
  bounds: { beforeMs?: number; untilSeq?: number },
): Promise<number> {
  const { beforeMs, untilSeq } = bounds;
  return sweep(
    deps.kv,
    stream,
    {
      ...(untilSeq === undefined ? {} : { until: untilSeq }),
      // The log is in time order: the first entry at or after the limit ends the sweep.
      ...(beforeMs === undefined ? {} : { stopAt: (e: Entry) => e[3] >= beforeMs }),
    },
    (entries) =>
      step(deps, stream, async ({ now }) => {
        const touched = (await liveOf(deps.kv, stream, entries))
          .filter(({ record }) => record.p === null)
          .map(({ id, record }) => ({
            id,
            record: { ...record, p: now, d: JSON.stringify({ id: (JSON.parse(record.d) as { id: unknown }).id }) },
          }));
        return { plan: { changed: [], touched }, result: touched.length };
      }),
  );
}

/** Full-refresh syncs: soft-deletes every record no save has included since `sinceMs`. */
export function deleteUnseen(deps: WriterDeps, stream: Stream, sinceMs: number): Promise<number> {
  return sweep(deps.kv, stream, {}, (entries) =>
    step(deps, stream, async ({ batchMs }) => {
      const changed: Changed[] = (await liveOf(deps.kv, stream, entries))
        .filter(({ record }) => record.x === null && record.s < sinceMs)
        .map(({ id, record }) => ({
          id,
          previousSeq: record.q,
          record: { ...record, m: batchMs, a: 'D', x: batchMs },
        }));
      return { plan: { changed, touched: [] }, result: changed.length };
    }),
  );
}

/** Deletes everything a stream stored (its connection is gone). Returns the records removed. */
export function dropStream(deps: Pick<WriterDeps, 'kv' | 'coordinator'>, stream: Stream): Promise<number> {
  const { kv } = deps;
  return withStreamLock(deps.coordinator, stream, async () => {
    const head = await readHead(kv, stream);
    if (!head) return 0;
    const starts = head.chunks.map((c) => c[0]);
    const ids = new Set<string>();
    // Every chunk, committed or not: each record's current position has its entry somewhere here.
    for (let i = 0; i < starts.length; i += 16) {
      for (const entries of await readChunks(kv, stream, starts.slice(i, i + 16)))
        for (const e of entries ?? []) ids.add(e[1]);
    }
    // Records first, then the log, then the head: a failure part-way leaves a stream that can be dropped again.
    const all = [...ids];
    for (let i = 0; i < all.length; i += SLICE) {
      await kv.deleteMany(all.slice(i, i + SLICE).map((id) => stream.recordKey(id)));
    }
    for (let i = 0; i < starts.length; i += SLICE) {
      await kv.deleteMany(starts.slice(i, i + SLICE).map((start) => stream.chunkKey(start)));
    }
    await kv.delete(stream.headKey);
    return all.length;
  });
}
