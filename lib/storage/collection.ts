import type { Storage } from './storage.js';

/**
 * Values keyed by (scope, id) with a per-scope index for listing, on any Keyv back end.
 * The index changes only when an id appears or disappears, under the coordinator's lock;
 * the index is written before the value, so a listed id may be missing but a stored value is
 * never unlisted.
 */
export interface Collection<T> {
  get(scope: string, id: string): Promise<T | undefined>;
  getMany(scope: string, ids: readonly string[]): Promise<(T | undefined)[]>;
  put(scope: string, id: string, value: T): Promise<void>;
  delete(scope: string, id: string): Promise<boolean>;
  /** Every id of the scope, oldest first. */
  ids(scope: string): Promise<string[]>;
}

export function createCollection<T>(storage: Storage, name: string): Collection<T> {
  const values = storage.keyv<T>(name);
  const index = storage.keyv<string[]>(`${name}-index`);
  const key = (scope: string, id: string) => `${scope}\u001f${id}`;

  const changeIndex = (scope: string, change: (ids: string[]) => string[] | undefined) =>
    storage.coordinator.withLock(`${name}-index:${scope}`, async () => {
      const next = change((await index.get(scope)) ?? []);
      if (next) await index.set(scope, next);
    });

  return {
    async get(scope, id) {
      return (await values.get(key(scope, id))) ?? undefined;
    },
    async getMany(scope, ids) {
      if (ids.length === 0) return [];
      const found = await values.get(ids.map((id) => key(scope, id)));
      return found.map((v) => v ?? undefined);
    },
    async put(scope, id, value) {
      const listed = (await index.get(scope)) ?? [];
      if (!listed.includes(id)) {
        await changeIndex(scope, (ids) => (ids.includes(id) ? undefined : [...ids, id]));
      }
      await values.set(key(scope, id), value);
    },
    async delete(scope, id) {
      const existed = await values.delete(key(scope, id));
      await changeIndex(scope, (ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : undefined));
      return existed;
    },
    async ids(scope) {
      return (await index.get(scope)) ?? [];
    },
  };
}
