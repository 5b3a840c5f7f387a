import { createOrderClock, type IndexPosition } from './ordered-index.js';
import { collectPage, type PageText, type ValueView } from './page-reader.js';
import { inOrder } from './in-order.js';
import type { Storage } from './storage.js';

/** Every value of a scope is in its `all` list; `lists` names the others it belongs to. */
export const allList = 'all';

export interface CollectionOptions<T> {
  /** The lists (beside `all`) a value belongs to, e.g. `integration:<key>`: one per filter. */
  lists?: (value: T) => readonly string[];
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
  /** `lists`: where the id may still be listed when there is no `previous` (its value already gone). */
  delete(scope: string, id: string, previous: T | undefined, lists?: readonly string[]): Promise<boolean>;
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
}

const batch = 500;
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
  const key = (scope: string, id: string) => `${scope}\u001f${id}`;
  const listKey = (scope: string, list: string) => `${scope}\u001f${list}`;
  const clock = createOrderClock();
  const layout = storage.keyv<number>('storage-layout');

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
      const before = previous ? listsOf(previous) : [];
      const after = listsOf(stored);
      // A list the value was already in, at the same order, needs no write.
      const added = previous?.order === order ? after.filter((l) => !before.includes(l)) : after;
      const left = before.filter((l) => !after.includes(l));
      await inOrder(storage, [
        ...(added.length > 0 ? [() => index.addMany(added.map((l) => ({ list: listKey(scope, l), id, order })))] : []),
        () => values.set(key(scope, id), stored),
        ...left.map((l) => () => index.remove(listKey(scope, l), id)),
      ]);
      return stored;
    },
    async delete(scope, id, previous, lists = []) {
      let existed = false;
      await inOrder(storage, [
        async () => (existed = await values.delete(key(scope, id))),
        ...(previous ? listsOf(previous) : [allList, ...lists]).map((l) => () => index.remove(listKey(scope, l), id)),
      ]);
      return existed;
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
          for (const l of listsOf(upgraded)) positions.push({ list: listKey(scope, l), id, order: upgraded.order });
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
