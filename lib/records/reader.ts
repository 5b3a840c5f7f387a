import { encodeCursor } from './cursor.js';
import { readHead, readRecords, scanLog, type RecordsKv } from './log.js';
import { toPublicRecord, type Action, type PublicRecord, type StoredRecord } from './stored.js';
import type { Stream } from './stream.js';

export interface PageQuery {
  /** Sequence number from a cursor: only changes after it. */
  after?: number | undefined;
  limit: number;
  /** Only records whose last action is one of these. */
  actions?: ReadonlySet<Action> | undefined;
  /** Only records modified after this time (ms). */
  modifiedAfter?: number | undefined;
  /** Only these ids (at most a hundred, so read directly rather than through the log). */
  ids?: readonly string[] | undefined;
}

/** Spec 2.3. `next_cursor` is null when nothing matched beyond this page at the time of the read. */
export interface RecordsPage {
  records: PublicRecord[];
  next_cursor: string | null;
}

/**
 * One page in modification order. One record more than the limit is looked for, so that
 * `next_cursor` is null exactly on the last page. A record changed while a client pages has
 * moved to the end of the log: it is met again there, never lost.
 */
export async function readPage(kv: RecordsKv, stream: Stream, query: PageQuery): Promise<RecordsPage> {
  const head = await readHead(kv, stream);
  if (!head) return { records: [], next_cursor: null };
  const after = query.after ?? 0;
  const want = query.limit + 1;
  const { actions, modifiedAfter } = query;
  const found: StoredRecord[] = [];

  if (query.ids) {
    const ids = [...new Set(query.ids)];
    for (const record of await readRecords(kv, stream, ids)) {
      if (!record || record.q <= after || record.q > head.committed) continue;
      if (actions && !actions.has(record.a)) continue;
      if (modifiedAfter !== undefined && record.m <= modifiedAfter) continue;
      found.push(record);
    }
    found.sort((a, b) => a.q - b.q);
  } else {
    for await (const entries of scanLog(kv, stream, head, { after, modifiedAfter })) {
      // The entry carries the action, so a filter costs no record reads.
      const candidates = actions ? entries.filter((e) => actions.has(e[2])) : entries;
      for (let i = 0; i < candidates.length && found.length < want;) {
        const need = want - found.length;
        // A little more than needed: some entries are dead (their record changed since).
        const slice = candidates.slice(i, i + need + (need >> 2) + 8);
        i += slice.length;
        const records = await readRecords(
          kv,
          stream,
          slice.map((e) => e[1]),
        );
        slice.forEach((entry, k) => {
          const record = records[k];
          if (record && record.q === entry[0] && found.length < want) found.push(record);
        });
      }
      if (found.length >= want) break;
    }
  }

  const page = found.slice(0, query.limit);
  const last = page.at(-1);
  return {
    records: page.map((record) => toPublicRecord(stream, record)),
    next_cursor: found.length > query.limit && last ? encodeCursor(stream, last.q) : null,
  };
}
