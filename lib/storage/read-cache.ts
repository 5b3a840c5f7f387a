/**
 * An in-process cache for the proxy's hot path. Writes through this process invalidate it;
 * when several processes share the store, `ttlMs` bounds how long another process's write
 * can go unseen.
 */
export interface ReadCache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  delete(key: string): void;
  /** Loads through the cache, sharing one load between concurrent callers. */
  load(key: string, loader: () => Promise<T | undefined>): Promise<T | undefined>;
}

export function createReadCache<T>(options: { ttlMs: number; maxEntries?: number }): ReadCache<T> {
  const entries = new Map<string, { value: T; expires: number }>();
  const loading = new Map<string, Promise<T | undefined>>();
  const max = options.maxEntries ?? 10_000;
  let generation = 0;

  const cache: ReadCache<T> = {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires <= Date.now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value) {
      if (entries.size >= max) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, expires: Date.now() + options.ttlMs });
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
      if (pending) return pending;
      const started = generation;
      const promise = loader().then((value) => {
        // A write while loading makes this value stale: hand it out, but do not cache it.
        if (value !== undefined && started === generation) cache.set(key, value);
        return value;
      }).finally(() => {
        if (loading.get(key) === promise) loading.delete(key);
      });
      loading.set(key, promise);
      return promise;
    },
  };
  return cache;
}
