import type { Action } from './stored.js';

/**
 * The storage layout of one stream, on a key–value store with no range scans and no atomic
 * operations (see docs/records.md):
 *
 * - `<stream>:r:<id>`    one key per record (its payload and metadata, `StoredRecord`);
 * - `<stream>:c:<start>` the change log in chunks of at most `CHUNK_SIZE` entries, one entry
 *                        per change, in sequence order; a chunk holds the sequence numbers from
 *                        its start up to the next chunk's start;
 * - `<stream>:h`         the head: the chunk directory and the counters.
 *
 * An entry is live while its record's `q` still equals the entry's sequence number; a later
 * change of the record leaves the old entry dead, and compaction drops dead entries.
 */
export const CHUNK_SIZE = 1000;

/** One change: sequence number, record id, action, last_modified_at (ms). */
export type Entry = [seq: number, id: string, action: Action, ms: number];

/** Directory line of one chunk: its first sequence number, entries, newest ms, dead entries (a hint). */
export type ChunkInfo = [start: number, count: number, maxMs: number, dead: number];

export interface Head {
  v: 1;
  /** The highest sequence number handed out; never handed out twice, even after a failed write. */
  allocated: number;
  /** Readers see changes up to here: everything at or below is fully written. */
  committed: number;
  /** The newest last_modified_at: timestamps of a stream never go backwards. */
  lastMs: number;
  /** How many records (ids) the stream holds, deleted and pruned ones included. */
  live: number;
  chunks: ChunkInfo[];
}

export const emptyHead = (): Head => ({ v: 1, allocated: 0, committed: 0, lastMs: 0, live: 0, chunks: [] });

export const encodeHead = (head: Head): string => JSON.stringify(head);
export const decodeHead = (text: string): Head => JSON.parse(text) as Head;
export const encodeChunk = (entries: readonly Entry[]): string => JSON.stringify(entries);
export const decodeChunk = (text: string): Entry[] => JSON.parse(text) as Entry[];

/** Index of the chunk whose range holds `seq` (the last one starting at or before it), or -1. */
export function chunkIndexFor(chunks: readonly ChunkInfo[], seq: number): number {
  let low = 0;
  let high = chunks.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((chunks[mid] as ChunkInfo)[0] <= seq) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/** Index of the first chunk holding a change newer than `ms` (chunks are in time order too). */
export function firstChunkAfter(chunks: readonly ChunkInfo[], ms: number): number {
  let low = 0;
  let high = chunks.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((chunks[mid] as ChunkInfo)[2] <= ms) low = mid + 1;
    else high = mid;
  }
  return low;
}

export function logSize(head: Head): { entries: number; dead: number } {
  let entries = 0;
  let dead = 0;
  for (const [, count, , d] of head.chunks) {
    entries += count;
    dead += d;
  }
  return { entries, dead };
}
