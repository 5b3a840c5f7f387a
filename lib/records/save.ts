import { readRecords } from './log.js';
import { samePayload, type RecordData, type StoredRecord } from './stored.js';
import type { Stream } from './stream.js';
import { step, type Changed, type WriterDeps } from './writer.js';

export interface SaveResult {
  /** New ids, and ids that had been deleted and came back. */
  added: number;
  /** Existing records whose content changed (or whose pruned payload came back). */
  updated: number;
  /** Identical to what was stored: no change, no new cursor. */
  unchanged: number;
}

export interface DeleteResult {
  deleted: number;
  /** Already deleted: no change, no new cursor. */
  alreadyDeleted: number;
  /** No record with that id. */
  missing: number;
}

/** Upserts one slice of records (already validated, ids unique) in one locked step. */
export function saveSlice(
  deps: WriterDeps,
  stream: Stream,
  slice: readonly [string, RecordData][],
): Promise<SaveResult> {
  return step(deps, stream, async ({ batchMs, now }) => {
    const existing = await readRecords(
      deps.kv,
      stream,
      slice.map(([id]) => id),
    );
    return planUpserts(slice, existing, batchMs, now);
  });
}

/**
 * Merges one slice of partial records into the stored ones in one locked step, so no save of
 * the same stream lands between the read and the write. Ids not stored, or deleted, are skipped.
 */
export function updateSlice(
  deps: WriterDeps,
  stream: Stream,
  slice: readonly [string, RecordData][],
): Promise<SaveResult> {
  return step(deps, stream, async ({ batchMs, now }) => {
    const existing = await readRecords(
      deps.kv,
      stream,
      slice.map(([id]) => id),
    );
    const merged: [string, RecordData][] = [];
    const current: StoredRecord[] = [];
    slice.forEach(([id, partial], i) => {
      const old = existing[i];
      if (!old || old.x !== null) return;
      merged.push([id, { ...(JSON.parse(old.d) as RecordData), ...partial }]);
      current.push(old);
    });
    return planUpserts(merged, current, batchMs, now);
  });
}

function planUpserts(
  slice: readonly [string, RecordData][],
  existing: readonly (StoredRecord | undefined)[],
  batchMs: number,
  now: number,
) {
  const result: SaveResult = { added: 0, updated: 0, unchanged: 0 };
  const changed: Changed[] = [];
  const touched: { id: string; record: StoredRecord }[] = [];
  slice.forEach(([id, data], i) => {
    const text = JSON.stringify(data);
    const old = existing[i];
    if (!old) {
      result.added++;
      changed.push({
        id,
        previousSeq: null,
        record: { q: 0, f: batchMs, m: batchMs, a: 'A', x: null, p: null, s: now, d: text },
      });
      return;
    }
    if (old.x === null && old.p === null && samePayload(old.d, data, text)) {
      result.unchanged++;
      // Only the "seen" stamp moves, for deleteNotSeenSince; readers notice nothing.
      touched.push({ id, record: { ...old, s: now } });
      return;
    }
    const readded = old.x !== null;
    if (readded) result.added++;
    else result.updated++;
    changed.push({
      id,
      previousSeq: old.q,
      record: { q: 0, f: old.f, m: batchMs, a: readded ? 'A' : 'U', x: null, p: null, s: now, d: text },
    });
  });
  return { plan: { changed, touched }, result };
}

/** Soft-deletes one slice of ids: `deleted_at` set, payload kept, a new cursor. */
export function deleteSlice(deps: WriterDeps, stream: Stream, ids: readonly string[]): Promise<DeleteResult> {
  return step(deps, stream, async ({ batchMs }) => {
    const existing = await readRecords(deps.kv, stream, ids);
    const result: DeleteResult = { deleted: 0, alreadyDeleted: 0, missing: 0 };
    const changed: Changed[] = [];
    ids.forEach((id, i) => {
      const old = existing[i];
      if (!old) result.missing++;
      else if (old.x !== null) result.alreadyDeleted++;
      else {
        result.deleted++;
        changed.push({ id, previousSeq: old.q, record: { ...old, m: batchMs, a: 'D', x: batchMs } });
      }
    });
    return { plan: { changed, touched: [] }, result };
  });
}
