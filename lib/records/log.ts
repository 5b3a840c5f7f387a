import type Keyv from 'keyv';
import {
  chunkIndexFor,
  decodeChunk,
  decodeHead,
  firstChunkAfter,
  type ChunkInfo,
  type Entry,
  type Head,
} from './layout.js';
import { decodeRecord, type StoredRecord } from './stored.js';
import type { Stream } from './stream.js';

/** The records namespace: every value is JSON text (see stored.ts for why). */
export type RecordsKv = Keyv<string>;

export async function readHead(kv: RecordsKv, stream: Stream): Promise<Head | undefined> {
  const text = await kv.get(stream.headKey);
  return text === undefined ? undefined : decodeHead(text);
}

export async function readChunks(
  kv: RecordsKv,
  stream: Stream,
  starts: readonly number[],
): Promise<(Entry[] | undefined)[]> {
  if (starts.length === 0) return [];
  const texts = await kv.getMany(starts.map((start) => stream.chunkKey(start)));
  return texts.map((text) => (text === undefined || text === null ? undefined : decodeChunk(text)));
}

export async function readRecords(
  kv: RecordsKv,
  stream: Stream,
  ids: readonly string[],
): Promise<(StoredRecord | undefined)[]> {
  if (ids.length === 0) return [];
  const texts = await kv.getMany(ids.map((id) => stream.recordKey(id)));
  return texts.map((text) => (text === undefined || text === null ? undefined : decodeRecord(text)));
}

export interface ScanOptions {
  /** Only entries after this sequence number. */
  after: number;
  /** Only entries up to this one (inclusive); never beyond the head's `committed`. */
  until?: number;
  /** Only entries modified after this time (ms); whole chunks before it are not read. */
  modifiedAfter?: number | undefined;
}

/**
 * The change log's entries in (after, until], oldest first, one array per chunk read.
 * Dead entries are included: whether an entry is live needs its record, which the caller reads.
 *
 * Compaction may replace chunks between our head read and a chunk read. A listed chunk that is
 * missing sends us back to a fresh head, resuming after the last entry examined; a chunk still
 * listed and still missing after that is an empty leftover of a failed write and is skipped.
 */
export async function* scanLog(
  kv: RecordsKv,
  stream: Stream,
  head: Head,
  options: ScanOptions,
): AsyncGenerator<Entry[]> {
  const until = Math.min(options.until ?? head.committed, head.committed);
  const minMs = options.modifiedAfter;
  let chunks: ChunkInfo[] = head.chunks;
  let examined = options.after;
  const startIndex = () =>
    Math.max(0, chunkIndexFor(chunks, examined + 1), minMs === undefined ? 0 : firstChunkAfter(chunks, minMs));
  let index = startIndex();
  let readAhead = 1;
  let refreshedFor: number | undefined;

  while (index < chunks.length && (chunks[index] as ChunkInfo)[0] <= until) {
    const group = chunks.slice(index, index + readAhead).filter((c) => c[0] <= until);
    const contents = await readChunks(
      kv,
      stream,
      group.map((c) => c[0]),
    );
    let moved = false;
    for (const [i, entries] of contents.entries()) {
      const start = (group[i] as ChunkInfo)[0];
      if (entries === undefined) {
        if (refreshedFor === start) continue;
        refreshedFor = start;
        chunks = (await readHead(kv, stream))?.chunks ?? [];
        index = startIndex();
        moved = true;
        break;
      }
      const fresh: Entry[] = [];
      for (const entry of entries) {
        const seq = entry[0];
        if (seq <= examined || seq > until) continue;
        if (minMs === undefined || entry[3] > minMs) fresh.push(entry);
      }
      const last = entries.findLast((e) => e[0] <= until);
      if (last && last[0] > examined) examined = last[0];
      if (fresh.length > 0) yield fresh;
    }
    if (!moved) index += group.length;
    // Most reads need one chunk; long scans (filters, maintenance) fetch several per round trip.
    readAhead = Math.min(readAhead * 2, 8);
  }
}
