import type { Storage } from '../storage/index.js';
import { compactableDead, compactStream, needsCompaction } from './compaction.js';
import { createConnectionStreams } from './connection-streams.js';
import { decodeCursor } from './cursor.js';
import { idsToDelete, idOf, recordsToSave } from './input.js';
import { logSize } from './layout.js';
import { readHead, type RecordsKv } from './log.js';
import { deleteUnseen, dropStream, pruneStream } from './maintenance.js';
import { readPage, type RecordsPage } from './reader.js';
import { deleteSlice, saveSlice, updateSlice, type DeleteResult, type SaveResult } from './save.js';
import type { Action } from './stored.js';
import { streamOf, type StreamRef } from './stream.js';
import type { WriterDeps } from './writer.js';
import { recordChannels } from './diagnostics.js';

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
export const MAX_IDS = 100;
/** Larger batches are written as several locked steps of this size. */
const SAVE_SLICE = 10_000;

export type RecordFilter = 'added' | 'updated' | 'deleted';
const filterAction = { added: 'A', updated: 'U', deleted: 'D' } as const satisfies Record<RecordFilter, Action>;

export interface ListOptions {
  /** A record's `_service_metadata.cursor` or a page's `next_cursor`. */
  cursor?: string | undefined;
  /** 1 to MAX_PAGE_LIMIT; default 100. */
  limit?: number | undefined;
  /** Union of last actions. */
  filter?: readonly RecordFilter[] | undefined;
  modifiedAfter?: Date | undefined;
  ids?: readonly (string | number)[] | undefined;
}

export type CursorProblem = 'undecodable_cursor' | 'foreign_cursor';
export type ListResult = { ok: true; page: RecordsPage } | { ok: false; reason: CursorProblem };
export type PruneResult = { ok: true; pruned: number } | { ok: false; reason: CursorProblem };

export interface StreamStats {
  /** Records (ids) held, deleted and pruned ones included. */
  records: number;
  logEntries: number;
  /** Entries superseded by a later change, not yet compacted away (a hint). */
  deadEntries: number;
  chunks: number;
}

/** The synced-records store: the write API scripts use and the read API behind GET /records. */
export interface RecordStore {
  /** Upsert with change detection: an identical record makes no change and gets no new cursor. */
  batchSave(ref: StreamRef, records: readonly unknown[]): Promise<SaveResult>;
  /**
   * Merges partial records (each with an id) into the stored ones, reading and writing under the
   * stream's lock so a concurrent save is never overwritten. Ids not stored, or deleted, are skipped.
   */
  batchUpdate(ref: StreamRef, partials: readonly unknown[]): Promise<SaveResult>;
  /** Soft delete by id (or by records carrying one): `deleted_at` set, the record kept. */
  batchDelete(ref: StreamRef, idsOrRecords: readonly unknown[]): Promise<DeleteResult>;
  /** For full-refresh syncs: soft-deletes every record that no save included since `since`. */
  deleteNotSeenSince(ref: StreamRef, since: Date): Promise<{ deleted: number }>;
  /** Drops payloads, keeping ids and metadata: records modified before `before`, or at and before `cursor`. */
  prune(ref: StreamRef, by: { before: Date } | { cursor: string }): Promise<PruneResult>;
  list(ref: StreamRef, options?: ListOptions): Promise<ListResult>;
  /** The cursor of the newest change modified after `since`, or null when there is none. */
  latestCursorSince(ref: StreamRef, since: Date): Promise<string | null>;
  /** Runs compaction now (it also runs in the background once enough entries are dead). */
  compact(ref: StreamRef): Promise<{ removed: number }>;
  stats(ref: StreamRef): Promise<StreamStats>;
  /** Deletes every record of every model of a connection. */
  dropConnection(
    environment: string,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<{ streams: number; records: number }>;
  /** Lets running background compactions finish their current step; starts no new ones. */
  close(): Promise<void>;
}

export interface RecordStoreOptions {
  storage: Storage;
  /** Epoch ms; tests pass a controllable clock. */
  clock?: () => number;
  /** Failures of background work (compaction), which has no caller to throw to. */
  onError?: (error: unknown, context: Record<string, unknown>) => void;
}

export function createRecordStore(options: RecordStoreOptions): RecordStore {
  const kv: RecordsKv = options.storage.keyv<string>('records');
  // Values are JSON text this feature builds itself. Keyv's default serializer would wrap it in
  // a second JSON document (escaping every quote) and parse it back with a reviver, which costs
  // more than the rest of a save; on this namespace, which nothing else uses, the text is stored
  // as it is. No value here has a TTL, so Keyv's `expires` has nothing to carry.
  kv.serialize = (data: { value?: unknown }) => data.value as string;
  kv.deserialize = <Value>(text: string) => ({ value: text as Value });
  const { coordinator } = options.storage;
  const onError = options.onError ?? (() => {});
  const connectionStreams = createConnectionStreams(kv, coordinator);
  const compactions = new Map<string, Promise<unknown>>();
  let closing = false;

  const deps: WriterDeps = {
    kv,
    coordinator,
    clock: options.clock ?? Date.now,
    onNewStream: (stream) => connectionStreams.add(stream),
    afterCommit(stream, head) {
      if (closing || compactions.has(stream.id) || !needsCompaction(head)) return;
      const running = compactStream(deps, stream, () => closing)
        .catch((error: unknown) => onError(error, { task: 'records.compact', model: stream.ref.model }))
        .finally(() => compactions.delete(stream.id));
      compactions.set(stream.id, running);
    },
  };

  const seqOf = (ref: StreamRef, cursor: string): { ok: true; seq: number } | { ok: false; reason: CursorProblem } => {
    const decoded = decodeCursor(streamOf(ref), cursor);
    return decoded.ok
      ? decoded
      : { ok: false, reason: decoded.reason === 'foreign' ? 'foreign_cursor' : 'undecodable_cursor' };
  };

  const written = (ref: StreamRef, added: number, updated: number, deleted: number): void => {
    if (!recordChannels.written.hasSubscribers || added + updated + deleted === 0) return;
    recordChannels.written.publish({
      environment: ref.environment,
      providerConfigKey: ref.providerConfigKey,
      model: ref.model,
      added,
      updated,
      deleted,
    });
  };

  const upsert = async (ref: StreamRef, records: readonly unknown[], slice: typeof saveSlice): Promise<SaveResult> => {
    const stream = streamOf(ref);
    const entries = [...recordsToSave(records)];
    const total: SaveResult = { added: 0, updated: 0, unchanged: 0 };
    for (let i = 0; i < entries.length; i += SAVE_SLICE) {
      const part = await slice(deps, stream, entries.slice(i, i + SAVE_SLICE));
      total.added += part.added;
      total.updated += part.updated;
      total.unchanged += part.unchanged;
    }
    written(ref, total.added, total.updated, 0);
    return total;
  };

  return {
    batchSave: (ref, records) => upsert(ref, records, saveSlice),
    batchUpdate: (ref, partials) => upsert(ref, partials, updateSlice),
    async batchDelete(ref, idsOrRecords) {
      const stream = streamOf(ref);
      const ids = idsToDelete(idsOrRecords);
      const total: DeleteResult = { deleted: 0, alreadyDeleted: 0, missing: 0 };
      for (let i = 0; i < ids.length; i += SAVE_SLICE) {
        const part = await deleteSlice(deps, stream, ids.slice(i, i + SAVE_SLICE));
        total.deleted += part.deleted;
        total.alreadyDeleted += part.alreadyDeleted;
        total.missing += part.missing;
      }
      written(ref, 0, 0, total.deleted);
      return total;
    },
    async deleteNotSeenSince(ref, since) {
      const deleted = await deleteUnseen(deps, streamOf(ref), since.getTime());
      written(ref, 0, 0, deleted);
      return { deleted };
    },
    async prune(ref, by) {
      const stream = streamOf(ref);
      if ('cursor' in by) {
        const position = seqOf(ref, by.cursor);
        if (!position.ok) return position;
        return { ok: true, pruned: await pruneStream(deps, stream, { untilSeq: position.seq }) };
      }
      return { ok: true, pruned: await pruneStream(deps, stream, { beforeMs: by.before.getTime() }) };
    },
    async list(ref, query = {}) {
      let after: number | undefined;
      if (query.cursor !== undefined) {
        const position = seqOf(ref, query.cursor);
        if (!position.ok) return position;
        after = position.seq;
      }
      const limit = Math.min(Math.max(Math.trunc(query.limit ?? DEFAULT_PAGE_LIMIT), 1), MAX_PAGE_LIMIT);
      const page = await readPage(kv, streamOf(ref), {
        after,
        limit,
        actions: query.filter ? new Set(query.filter.map((f) => filterAction[f])) : undefined,
        modifiedAfter: query.modifiedAfter?.getTime(),
        ids: query.ids?.map((id, i) => idOf(id, `ids[${i}]`)),
      });
      return { ok: true, page };
    },
    async latestCursorSince(ref, since) {
      const stream = streamOf(ref);
      let after: number | undefined;
      let latest: string | null = null;
      for (;;) {
        const page = await readPage(kv, stream, {
          after,
          limit: MAX_PAGE_LIMIT,
          actions: undefined,
          modifiedAfter: since.getTime(),
          ids: undefined,
        });
        latest = page.records.at(-1)?._service_metadata.cursor ?? latest;
        if (!page.next_cursor) return latest;
        const position = seqOf(ref, page.next_cursor);
        if (!position.ok) return latest;
        after = position.seq;
      }
    },
    compact: (ref) => compactStream(deps, streamOf(ref)),
    async stats(ref) {
      const head = await readHead(kv, streamOf(ref));
      if (!head) return { records: 0, logEntries: 0, deadEntries: 0, chunks: 0 };
      return {
        records: head.live,
        logEntries: logSize(head).entries,
        deadEntries: compactableDead(head),
        chunks: head.chunks.length,
      };
    },
    async dropConnection(environment, providerConfigKey, connectionId) {
      const streams = await connectionStreams.of(environment, providerConfigKey, connectionId);
      let records = 0;
      for (const stream of streams) records += await dropStream(deps, stream);
      await connectionStreams.forget(streams);
      return { streams: streams.length, records };
    },
    async close() {
      closing = true;
      await Promise.allSettled([...compactions.values()]);
    },
  };
}
