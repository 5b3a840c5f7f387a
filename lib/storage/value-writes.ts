import type Keyv from 'keyv';
import type { ListedWrite } from './storage.js';

/** A value's write with no index entries, for `Storage.writeListed`; without a value, its deletion. */
export const valueWrite = (namespace: string, key: string, value?: unknown): ListedWrite => ({
  namespace,
  key,
  value,
  add: [],
  remove: [],
});

/** Writes without entries through their namespace's Keyv, all at once: for writes whose order does not matter. */
export const writeValues = <T>(kv: Keyv<T>, writes: readonly ListedWrite[]) =>
  Promise.all(writes.map((w) => (w.value === undefined ? kv.delete(w.key) : kv.set(w.key, w.value as T))));
