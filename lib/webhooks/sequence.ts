import type { Storage } from '../storage/index.js';

/** Numbers each environment's deliveries (or events) 1, 2, 3, … so they can be listed without an index. */
export interface DeliverySequence {
  /** Reserves `count` numbers; returns the first. */
  next(env: string, count: number): Promise<number>;
  /** The highest number handed out so far (0 when none). */
  current(env: string): Promise<number>;
}

/**
 * On shared storage the coordinator's counter is the sequence (on Redis, INCRBY: atomic across
 * processes and kept by Redis). On a single process's storage the coordinator's counters live in
 * memory, so the sequence is kept in the store itself, its writes serialized in this process.
 */
export function createDeliverySequence(storage: Storage, name = 'webhook'): DeliverySequence {
  const counterKey = (env: string) => `${name}-seq:${env}`;
  if (storage.shared) {
    return {
      async next(env, count) {
        return (await storage.coordinator.increment(counterKey(env), count)) - count + 1;
      },
      current: (env) => storage.coordinator.increment(counterKey(env), 0),
    };
  }
  const kv = storage.keyv<number>(`${name}-sequence`);
  const loaded = new Map<string, number>();
  let chain: Promise<unknown> = Promise.resolve();
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };
  const read = async (env: string) => loaded.get(env) ?? (await kv.get(env)) ?? 0;
  return {
    async next(env, count) {
      // Only the read is serialized: the numbers are taken in memory at once, and the writes,
      // queued in that order, are awaited outside the chain, so a store that commits once per
      // turn (SQLite's group commit) does not hand out one number per turn.
      const { last, written } = await serialized(async () => {
        const at = await read(env);
        loaded.set(env, at + count);
        return { last: at, written: kv.set(env, at + count) };
      });
      await written;
      return last + 1;
    },
    current: (env) => serialized(() => read(env)),
  };
}
