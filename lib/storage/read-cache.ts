import { isStoreUnavailable } from './guard.js';

/**
 * An in-process cache for the proxy's hot path. Writes through this process invalidate it;
 * when several processes share the store, `ttlMs` bounds how long another process's write
 * can go unseen. While the store is unavailable, a value past its `ttlMs` is still handed
 * out for up to `graceMs` more, so warm connections keep working through a store outage and
 * cold ones get the 503: the first load that meets the outage waits for the store's deadline,
 * later ones get the kept value at once while the store is asked again in the background
 * (at most once a second per key).
 */
export interface ReadCache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  delete(key: string): void;
  /** Loads through the cache, sharing one load between concurrent callers. */
  load(key: string, loader: () => Promise<T | undefined>): Promise<T | undefined>;
}

/** How long past its freshness a cached value still serves while the store is unavailable. */
export const defaultCacheGraceMs = 60_000;
/** While serving stale, the store is asked again at most this often. */
const staleRecheckMs = 1_000;

interface Entry<T> {
  value: T;
  expires: number;
  /** Past this, the value is not served even when the store is unavailable. */
  staleUntil: number;
}

export function createReadCache<T>(options: { ttlMs: number; maxEntries?: number; graceMs?: number }): ReadCache<T> {
  const entries = new Map<string, Entry<T>>();
  const loading = new Map<string, Promise<T | undefined>>();
  const max = options.maxEntries ?? 10_000;
  const graceMs = options.graceMs ?? defaultCacheGraceMs;
  let generation = 0;

  /** A load met the store unavailable: until one succeeds, kept values serve at once. */
  let storeAway = false;

  /** The value kept past its freshness, if the grace period allows; served at once for a second more. */
  const stale = (key: string): T | undefined => {
    const entry = entries.get(key);
    const now = Date.now();
    if (!entry || entry.staleUntil <= now) return undefined;
    entry.expires = Math.min(now + staleRecheckMs, entry.staleUntil);
    return entry.value;
  };

  const loadInto = (key: string, loader: () => Promise<T | undefined>): Promise<T | undefined> => {
    const started = generation;
    const promise = loader()
      .then(
        (value) => {
          storeAway = false;
          // A write while loading makes this value stale: hand it out, but do not cache it.
          if (value !== undefined && started === generation) cache.set(key, value);
          return value;
        },
        (error: unknown) => {
          if (!isStoreUnavailable(error)) throw error;
          storeAway = true;
          const kept = started === generation ? stale(key) : undefined;
          if (kept === undefined) throw error;
          return kept;
        },
      )
      .finally(() => {
        if (loading.get(key) === promise) loading.delete(key);
      });
    loading.set(key, promise);
    return promise;
  };

  const cache: ReadCache<T> = {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires <= Date.now()) {
        // Kept (not served) through the grace period, in case the store fails to load it again.
        if (entry.staleUntil <= Date.now()) entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value) {
      if (entries.size >= max && !entries.has(key)) entries.delete(entries.keys().next().value as string);
      const expires = Date.now() + options.ttlMs;
      entries.set(key, { value, expires, staleUntil: expires + graceMs });
    },
    delete(key) {
      entries.delete(key);
      loading.delete(key);
      generation++;
    },
    async load(key, loader) {
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const pending = loading.get(key);
      // The store is known to be away: a kept value now, and the store asked in the background.
      if (storeAway) {
        const kept = stale(key);
        if (kept !== undefined) {
          if (!pending) loadInto(key, loader).catch(() => undefined);
          return kept;
        }
      }
      return pending ?? loadInto(key, loader);
    },
  };
  return cache;
}
