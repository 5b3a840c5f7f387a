import type { Coordinator } from '../coordination/index.js';
import {
  CHUNK_SIZE,
  chunkIndexFor,
  emptyHead,
  encodeChunk,
  encodeHead,
  type ChunkInfo,
  type Entry,
  type Head,
} from './layout.js';
import { readChunks, readHead, type RecordsKv } from './log.js';
import { encodeRecord, type StoredRecord } from './stored.js';
import type { Stream } from './stream.js';

/** A record that changes: it gets the next sequence number, so readers see it again. */
export interface Changed {
  id: string;
  record: StoredRecord;
  /** Its sequence number before this change (that log entry becomes dead), or null if new. */
  previousSeq: number | null;
}

/** What one locked step writes. `touched` records are rewritten in place, with no new cursor. */
export interface Plan {
  changed: Changed[];
  touched: { id: string; record: StoredRecord }[];
}

export interface StepContext {
  head: Head;
  /** last_modified_at of this step's changes: the clock, but never before the stream's newest. */
  batchMs: number;
  /** The clock itself, for `first_seen`-style stamps that need no ordering. */
  now: number;
}

export interface WriterDeps {
  kv: RecordsKv;
  coordinator: Coordinator;
  clock: () => number;
  /** Called once, before the first write of a stream that had no head yet. */
  onNewStream: (stream: Stream) => Promise<void>;
  /** Called after a step that changed records, with the head as written. */
  afterCommit: (stream: Stream, head: Head) => void;
}

/** A batch of 10,000 on Redis takes well under a second; the lease outlives slow disks. */
const LOCK = { ttlMs: 60_000, waitMs: 60_000 };

/** Every write to a stream (saves, deletes, pruning, compaction) holds this lock. */
export const withStreamLock = <T>(coordinator: Coordinator, stream: Stream, fn: () => Promise<T>): Promise<T> =>
  coordinator.withLock(stream.lockKey, fn, LOCK);

/**
 * Runs `plan` holding the stream's lock, then writes what it returns. Writes are ordered so that
 * a reader, and a failure between any two writes, never loses a record:
 *   1. the head (new directory and `allocated`, old `committed`) with the log chunks, one setMany;
 *   2. the records (each with its new sequence number), one setMany;
 *   3. the head with `committed` raised: the changes become visible.
 * A record's current sequence number always has its log entry (the log is written first), and
 * readers ignore entries above `committed`. After a failure, the next step starts above
 * `allocated` (no number is reused), and its commit also publishes what the failed step wrote.
 */
export async function step<T>(
  deps: WriterDeps,
  stream: Stream,
  plan: (context: StepContext) => Promise<{ plan: Plan; result: T }>,
): Promise<T> {
  return withStreamLock(deps.coordinator, stream, async () => {
    const stored = await readHead(deps.kv, stream);
    const head = stored ? await recover(deps.kv, stream, stored) : emptyHead();
    const now = deps.clock();
    const batchMs = Math.max(now, head.lastMs);
    const { plan: work, result } = await plan({ head, batchMs, now });
    if (work.changed.length === 0 && work.touched.length === 0) return result;
    if (!stored) await deps.onNewStream(stream);
    if (work.changed.length === 0) {
      await writeRecords(deps.kv, stream, work.touched);
      return result;
    }
    const next = await appendToLog(deps.kv, stream, head, work.changed, batchMs);
    await writeRecords(deps.kv, stream, [...work.changed, ...work.touched]);
    next.committed = next.allocated;
    await deps.kv.set(stream.headKey, encodeHead(next));
    deps.afterCommit(stream, next);
    return result;
  });
}

/** Steps 1 of the write: numbers the changes, appends their entries, writes the new head. */
async function appendToLog(
  kv: RecordsKv,
  stream: Stream,
  head: Head,
  changed: Changed[],
  batchMs: number,
): Promise<Head> {
  const chunks = head.chunks.map((c) => [...c] as ChunkInfo);
  let added = 0;
  for (const change of changed) {
    if (change.previousSeq === null) {
      added++;
      continue;
    }
    const index = chunkIndexFor(chunks, change.previousSeq);
    if (index >= 0) (chunks[index] as ChunkInfo)[3]++;
  }
  const entries: Entry[] = changed.map((change, k) => {
    const seq = head.allocated + 1 + k;
    change.record.q = seq;
    return [seq, change.id, change.record.a, change.record.m];
  });

  const writes: { key: string; value: string }[] = [];
  let taken = 0;
  const tail = chunks.at(-1);
  if (tail && tail[1] < CHUNK_SIZE) {
    const [current] = await readChunks(kv, stream, [tail[0]]);
    const existing = current ?? [];
    const room = Math.max(0, CHUNK_SIZE - existing.length);
    if (room > 0) {
      const appended = [...existing, ...entries.slice(0, room)];
      taken = appended.length - existing.length;
      tail[1] = appended.length;
      tail[2] = batchMs;
      writes.push({ key: stream.chunkKey(tail[0]), value: encodeChunk(appended) });
    }
  }
  for (let from = taken; from < entries.length; from += CHUNK_SIZE) {
    const part = entries.slice(from, from + CHUNK_SIZE);
    const start = (part[0] as Entry)[0];
    chunks.push([start, part.length, batchMs, 0]);
    writes.push({ key: stream.chunkKey(start), value: encodeChunk(part) });
  }

  const next: Head = {
    ...head,
    allocated: head.allocated + entries.length,
    lastMs: batchMs,
    live: head.live + added,
    chunks,
  };
  writes.unshift({ key: stream.headKey, value: encodeHead(next) });
  await kv.setMany(writes);
  return next;
}

async function writeRecords(
  kv: RecordsKv,
  stream: Stream,
  records: readonly { id: string; record: StoredRecord }[],
): Promise<void> {
  if (records.length === 0) return;
  await kv.setMany(records.map(({ id, record }) => ({ key: stream.recordKey(id), value: encodeRecord(record) })));
}

/**
 * A head with `allocated` above `committed` belongs to a step that failed part-way. Its chunks
 * were written together with the head (one setMany), but a store without multi-key atomicity
 * may have lost some: drop those from the directory. Committing later publishes the rest.
 */
export async function recover(kv: RecordsKv, stream: Stream, head: Head): Promise<Head> {
  if (head.allocated <= head.committed) return head;
  const suspects = head.chunks.filter((c) => c[0] > head.committed);
  const found = await readChunks(
    kv,
    stream,
    suspects.map((c) => c[0]),
  );
  const missing = new Set(suspects.filter((_, i) => found[i] === undefined).map((c) => c[0]));
  return { ...head, chunks: head.chunks.filter((c) => !missing.has(c[0])) };
}
