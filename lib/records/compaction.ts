import { CHUNK_SIZE, encodeChunk, encodeHead, type ChunkInfo, type Entry, type Head } from './layout.js';
import { readChunks, readHead, readRecords } from './log.js';
import type { Stream } from './stream.js';
import { recover, withStreamLock, type WriterDeps } from './writer.js';

/** Chunks rewritten per locked step: bounds how long one step keeps writers waiting. */
const GROUP = 16;

/** Worth rewriting: it holds dead entries, or it is small enough to merge with a neighbour. */
const worth = (c: ChunkInfo) => c[3] > 0 || c[1] < CHUNK_SIZE / 2;

/** Dead entries outside the tail chunk (the tail is never compacted: writers append to it). */
export function compactableDead(head: Head): number {
  let dead = 0;
  for (let i = 0; i < head.chunks.length - 1; i++) dead += (head.chunks[i] as ChunkInfo)[3];
  return dead;
}

/** Background compaction starts once dead entries outweigh half the records (plus a chunk). */
export const needsCompaction = (head: Head): boolean => compactableDead(head) > head.live / 2 + CHUNK_SIZE;

/**
 * Drops dead log entries and merges sparse chunks, a few chunks per locked step, so the log stays
 * proportional to the number of records, not to the number of changes ever made.
 */
export async function compactStream(
  deps: Pick<WriterDeps, 'kv' | 'coordinator'>,
  stream: Stream,
  stop: () => boolean = () => false,
): Promise<{ removed: number }> {
  let from = 0;
  let removed = 0;
  while (!stop()) {
    const step = await compactStep(deps, stream, from);
    removed += step.removed;
    if (step.next === null) break;
    from = step.next;
  }
  return { removed };
}

async function compactStep(
  deps: Pick<WriterDeps, 'kv' | 'coordinator'>,
  stream: Stream,
  from: number,
): Promise<{ next: number | null; removed: number }> {
  const { kv } = deps;
  return withStreamLock(deps.coordinator, stream, async () => {
    let head = await readHead(kv, stream);
    if (!head) return { next: null, removed: 0 };
    if (head.allocated > head.committed) {
      // A step failed part-way (we hold the lock: none is running). Publish what it wrote, as
      // its next writer would: each written record has its log entry.
      head = { ...(await recover(kv, stream, head)), committed: head.allocated };
      await kv.set(stream.headKey, encodeHead(head));
    }
    const { chunks } = head;
    const tail = chunks.length - 1;
    let i = chunks.findIndex((c) => c[0] >= from);
    if (i < 0) return { next: null, removed: 0 };
    // The next run of chunks worth rewriting: dead entries, or at least two to merge.
    let j = i;
    for (;;) {
      while (i < tail && !worth(chunks[i] as ChunkInfo)) i++;
      if (i >= tail) return { next: null, removed: 0 };
      j = i;
      while (j < tail && j - i < GROUP && worth(chunks[j] as ChunkInfo)) j++;
      if (j - i > 1 || (chunks[i] as ChunkInfo)[3] > 0) break;
      i = j;
    }
    const group = chunks.slice(i, j);
    const next = (chunks[j] as ChunkInfo)[0];
    const contents = await readChunks(
      kv,
      stream,
      group.map((c) => c[0]),
    );
    // A missing chunk is the empty leftover of a failed write: nothing in it to keep.
    const entries = contents.flatMap((c) => c ?? []);
    const ids = [...new Set(entries.map((e) => e[1]))];
    const records = await readRecords(kv, stream, ids);
    const seqOf = new Map<string, number>();
    records.forEach((record, k) => {
      if (record) seqOf.set(ids[k] as string, record.q);
    });
    const live = entries.filter((e) => seqOf.get(e[1]) === e[0]);

    const rebuilt: ChunkInfo[] = [];
    const writes: { key: string; value: string }[] = [];
    for (let k = 0; k < live.length; k += CHUNK_SIZE) {
      const part = live.slice(k, k + CHUNK_SIZE);
      // The first chunk keeps the group's start, so the ranges before it stay as they were.
      const start = k === 0 ? (group[0] as ChunkInfo)[0] : (part[0] as Entry)[0];
      rebuilt.push([start, part.length, (part.at(-1) as Entry)[3], 0]);
      writes.push({ key: stream.chunkKey(start), value: encodeChunk(part) });
    }
    const nextHead: Head = { ...head, chunks: [...chunks.slice(0, i), ...rebuilt, ...chunks.slice(j)] };
    writes.push({ key: stream.headKey, value: encodeHead(nextHead) });
    // New chunks and the head first; only then the chunks no longer listed (see scanLog).
    await kv.setMany(writes);
    const kept = new Set(rebuilt.map((c) => c[0]));
    const obsolete = group.filter((c) => !kept.has(c[0])).map((c) => stream.chunkKey(c[0]));
    if (obsolete.length > 0) await kv.deleteMany(obsolete);
    return { next, removed: entries.length - live.length };
  });
}
