import { keyedEntryId, splitKeyedEntry, type KeyedEntry, type KeyedHit } from './keyed-list.js';
import { createOrderClock, type IndexPosition } from './ordered-index.js';
import { collectPage, type PageText, type ValueView } from './page-reader.js';
import { writeInOrder } from './listed-writes.js';
import type { ListedWrite, Storage } from './storage.js';

/** Every value of a scope is in its `all` list; `lists` names the others it belongs to. */
export const allList = 'all';

export interface CollectionOptions<T> {
  /** The lists (beside `all`) a value belongs to, e.g. `integration:<key>`: one per filter. */
  lists?: (value: T) => readonly string[];
  /** Where a value is listed by key (keyed lists: read from a prefix, in key order). */
  keys?: (value: T) => readonly KeyedEntry[];
  /**
   * Raise it when `lists` or `keys` give stored values entries they were written without:
   * `relist` then adds them, scope by scope.
   */
  listsVersion?: number;
  /** Brings a value written by an older version up to date when its layout is upgraded. */
  upgrade?: (value: T) => T;
}

/**
 * Values keyed by (scope, id), listed through ordered indexes: one per list of a scope, each id
 * in order of creation. Writing or reading one value costs the same at any size of the scope,
 * and a page of a list costs the page. Index entries are written before the value and removed
 * after it, so a stored value is never unlisted (a listed id may be missing: readers skip it).
 */
export interface Collection<T extends { order?: number | undefined }> {
  get(scope: string, id: string): Promise<T | undefined>;
  getMany(scope: string, ids: readonly string[]): Promise<(T | undefined)[]>;
  /**
   * Stores `value` under `id`. `previous` is the value the caller read (under its own lock),
   * undefined for a new id: the value keeps its order, and moves between lists as they change.
   */
  put(scope: string, id: string, value: T, previous: T | undefined): Promise<T>;
  /**
   * `lists` and `keys`: where the id may still be listed when there is no `previous` (its value
   * already gone), as far as the caller can tell without the value.
   */
  delete(
    scope: string,
    id: string,
    previous: T | undefined,
    lists?: readonly string[],
    keys?: readonly KeyedEntry[],
  ): Promise<boolean>;
  /**
   * Re-reads `id`'s value and takes out of their lists those of `entries` it is not listed by
   * (all of them when the value is gone): entries a write cut short, or a deletion that found no
   * value, left behind. `entry` is the id in the list (a keyed entry's as `keyedEntryId` makes
   * it). The caller holds the value's lock, so that no write of it is under way. Returns how many
   * it removed.
   */
  dropStale(scope: string, id: string, entries: readonly { list: string; entry: string }[]): Promise<number>;
  /**
   * Up to `limit` entries of a keyed list whose key starts with `prefix`, by key then id, after
   * `after` (a hit's position) or from the prefix. Fewer than `limit`: nothing more matches.
   */
  keyed(scope: string, list: string, prefix: string, limit: number, after?: IndexPosition): Promise<KeyedHit[]>;
  /** Up to `limit` positions of a list after `after`, oldest first (newest first when `reverse`). */
  page(scope: string, list: string, limit: number, after?: IndexPosition, reverse?: boolean): Promise<IndexPosition[]>;
  /**
   * A page of a list with its values shown through `view`, as JSON: read by the storage's page
   * reader (off the gateway's thread) where it has one, else here.
   */
  pageText(
    scope: string,
    list: string,
    view: ValueView,
    page: { limit: number; after?: IndexPosition | undefined; reverse?: boolean | undefined },
  ): Promise<PageText>;
  /**
   * Moves what the older layout wrote (one array of every id per scope) into the indexes, and
   * drops the arrays. Safe to run again and from several processes; returns the values moved.
   */
  upgrade(): Promise<number>;
  /**
   * Adds the scope's values to the lists and keys they belong to now (`listsVersion` raised):
   * in batches, resumable after a stop, safe to run again and from several processes. Returns
   * the values it read; 0 once the scope is up to date.
   */
  relist(scope: string): Promise<number>;
}

type Entry = { list: string } & IndexPosition;

/** An id's entries in keyed lists: at order 0, under the key. */
const keyedEntries = (keys: readonly KeyedEntry[], id: string): Entry[] =>
  keys.map((k) => ({ list: k.list, id: keyedEntryId(k.key, id), order: 0 }));

const batch = 500;
/** Values per relist step: each step's writes stay well within a guarded store's timeout, under load too. */
const relistBatch = 100;
/** 2: ordered indexes (1 was one array of ids per scope). */
const currentLayout = 2;

export function createCollection<T extends { order?: number | undefined }>(
  storage: Storage,
  name: string,
  options: CollectionOptions<T> = {},
): Collection<T> {
  const values = storage.keyv<T>(name);
  const index = storage.index(name);
  const listsOf = (value: T) => [allList, ...(options.lists?.(value) ?? [])];
  /** Every index entry of a value, lists unscoped: its place in each list, at order 0 in keyed ones. */
  const entriesOf = (value: T, id: string, order: number): Entry[] => [
    ...listsOf(value).map((list) => ({ list, id, order })),
    ...keyedEntries(options.keys?.(value) ?? [], id),
  ];
  const tag = (e: Entry) => `${e.list}\u0000${e.id}`;
  const key = (scope: string, id: string) => `${scope}\u001f${id}`;
  const listKey = (scope: string, list: string) => `${scope}\u001f${list}`;
  const clock = createOrderClock();
  const layout = storage.keyv<number>('storage-layout');
  const relisted = storage.keyv<{ version: number; after?: IndexPosition }>('storage-relisted');
  const scoped = (scope: string) => (e: Entry) => ({ ...e, list: listKey(scope, e.list) });
  /** A value and its entries (lists scoped): in one round trip where the storage can, else one after the other. */
  const writeListed = async (write: ListedWrite): Promise<boolean> =>
    (await writeInOrder(storage, [[write]]))[0] === true;

  const collection: Collection<T> = {
    async get(scope, id) {
      return (await values.get(key(scope, id))) ?? undefined;
    },
    async getMany(scope, ids) {
      if (ids.length === 0) return [];
      const found = await values.get(ids.map((id) => key(scope, id)));
      return found.map((v) => v ?? undefined);
    },
    async put(scope, id, value, previous) {
      const order = previous?.order ?? value.order ?? clock();
      const stored = { ...value, order };
      const before = previous ? entriesOf(previous, id, previous.order ?? -1) : [];
      const after = entriesOf(stored, id, order);
      // An entry already there, at the same order, needs no write.
      const had = new Map(before.map((e) => [tag(e), e.order]));
      const added = after.filter((e) => had.get(tag(e)) !== e.order);
      const kept = new Set(after.map(tag));
      const gone = before.filter((e) => !kept.has(tag(e)));
      await writeListed({
        namespace: name,
        key: key(scope, id),
        value: stored,
        add: added.map(scoped(scope)),
        remove: gone.map(scoped(scope)),
      });
      return stored;
    },
    async delete(scope, id, previous, lists = [], keys = []) {
      const entries = previous
        ? entriesOf(previous, id, 0)
        : [...[allList, ...lists].map((list) => ({ list, id, order: 0 })), ...keyedEntries(keys, id)];
      return writeListed({ namespace: name, key: key(scope, id), add: [], remove: entries.map(scoped(scope)) });
    },
    async dropStale(scope, id, entries) {
      const value = await collection.get(scope, id);
      const listed = new Set(value ? entriesOf(value, id, value.order ?? 0).map(tag) : []);
      const stale = entries.filter((e) => !listed.has(tag({ list: e.list, id: e.entry, order: 0 })));
      await Promise.all(stale.map((e) => index.remove(listKey(scope, e.list), e.entry)));
      return stale.length;
    },
    async keyed(scope, list, prefix, limit, after) {
      const positions = await index.page(listKey(scope, list), limit, after ?? { order: 0, id: prefix });
      const hits: KeyedHit[] = [];
      for (const position of positions) {
        const { key, id } = splitKeyedEntry(position.id);
        if (position.order !== 0 || !key.startsWith(prefix)) break;
        hits.push({ key, id, position });
      }
      return hits;
    },
    page(scope, list, limit, after, reverse) {
      return index.page(listKey(scope, list), limit, after, reverse);
    },
    pageText(scope, list, view, page) {
      const request = { namespace: name, list: listKey(scope, list), keyPrefix: key(scope, ''), view, ...page };
      if (storage.pages) return storage.pages.read(request);
      return collectPage(
        {
          positions: (l, limit, after, reverse) => index.page(l, limit, after, reverse),
          values: async (keys) => (keys.length === 0 ? [] : values.get(keys)),
        },
        request,
      );
    },
    async upgrade() {
      // Once done, a start skips it: looking for old arrays scans the whole keyspace on Redis.
      if ((await layout.get(name)) === currentLayout) return 0;
      return storage.coordinator.withLock(
        `${name}-upgrade`,
        async () => {
          const moved = await upgradeLegacy();
          await layout.set(name, currentLayout);
          return moved;
        },
        { waitMs: 600_000, ttlMs: 600_000 },
      );
    },
    async relist(scope) {
      const version = options.listsVersion ?? 0;
      const at = `${name}\u001f${scope}`;
      const upToDate = (s: { version: number; after?: IndexPosition } | undefined) =>
        s?.version === version && !s.after;
      if (upToDate(await relisted.get(at))) return 0;
      return storage.coordinator.withLock(
        `${name}-relist:${scope}`,
        async () => {
          const state = await relisted.get(at);
          if (upToDate(state)) return 0;
          // Resumes where a stopped run saved its place; adding an entry twice changes nothing.
          let after = state?.version === version ? state.after : undefined;
          let read = 0;
          for (;;) {
            const positions = await index.page(listKey(scope, allList), relistBatch, after);
            const found = await collection.getMany(
              scope,
              positions.map((p) => p.id),
            );
            const entriesAt = (v: T | undefined, i: number) => {
              const p = positions[i] as IndexPosition;
              return v ? entriesOf(v, p.id, v.order ?? p.order) : [];
            };
            const entries = found.flatMap(entriesAt);
            if (entries.length > 0) {
              await index.addMany(entries.map(scoped(scope)));
              // A write between the read and the add moved its value on: take back what the add
              // put where the value no longer is (a write after this read does so itself).
              const now = await collection.getMany(
                scope,
                positions.map((p) => p.id),
              );
              const stale = found.flatMap((v, i) => {
                const kept = new Set(entriesAt(now[i], i).map(tag));
                return entriesAt(v, i).filter((e) => !kept.has(tag(e)));
              });
              await Promise.all(stale.map((e) => index.remove(listKey(scope, e.list), e.id)));
            }
            read += positions.length;
            after = positions.at(-1);
            if (positions.length < relistBatch || !after) break;
            await relisted.set(at, { version, after });
          }
          await relisted.set(at, { version });
          return read;
        },
        { waitMs: 600_000, ttlMs: 600_000 },
      );
    },
  };

  /** The older layout: `<name>-index` holds, per scope, the array of every id, oldest first. */
  async function upgradeLegacy(): Promise<number> {
    const legacy = storage.keyv<string[]>(`${name}-index`);
    const scopes: [string, string[]][] = [];
    for await (const [scope, ids] of legacy.iterator?.(undefined) ?? []) {
      if (typeof scope === 'string' && Array.isArray(ids)) scopes.push([scope, ids as string[]]);
    }
    let moved = 0;
    for (const [scope, ids] of scopes) {
      // Orders below any new one, in the array's order.
      const base = clock() - ids.length - 1;
      for (let i = 0; i < ids.length; i += batch) {
        const slice = ids.slice(i, i + batch);
        const found = await collection.getMany(scope, slice);
        const entries: { key: string; value: T }[] = [];
        const positions: ({ list: string } & IndexPosition)[] = [];
        found.forEach((value, k) => {
          if (!value) return;
          const id = slice[k] as string;
          const upgraded = { ...(options.upgrade?.(value) ?? value), order: value.order ?? base + i + k };
          entries.push({ key: key(scope, id), value: upgraded });
          positions.push(...entriesOf(upgraded, id, upgraded.order).map(scoped(scope)));
        });
        if (positions.length > 0) await index.addMany(positions);
        if (entries.length > 0) await values.setMany(entries);
        moved += entries.length;
      }
      await legacy.delete(scope);
    }
    return moved;
  }

  return collection;
}
