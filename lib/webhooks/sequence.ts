import type { Storage } from '../storage/index.js';

/** Numbers each environment's deliveries (or events) 1, 2, 3, … so they can be listed without an index. */
export interface DeliverySequence {
  /** Reserves `count` numbers; returns the first once the reservation is stored. */
  next(env: string, count: number): Promise<number>;
  /**
   * Reserves `count` numbers and returns the first at once; `written` settles when the
   * reservation is stored. What the numbers are for must not be stored before it (see `inOrder`).
   */
  reserve(env: string, count: number): Promise<{ first: number; written: Promise<unknown> }>;
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
    const next = async (env: string, count: number) =>
      (await storage.coordinator.increment(counterKey(env), count)) - count + 1;
    return {
      next,
      async reserve(env, count) {
        return { first: await next(env, count), written: Promise.resolve() };
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
  // Only the read is serialized: the numbers are taken in memory at once, and the writes,
  // queued in that order, are awaited outside the chain, so a store that commits once per
  // turn (SQLite's group commit) does not hand out one number per turn.
  const reserve = (env: string, count: number) =>
    serialized(async () => {
      const at = await read(env);
      loaded.set(env, at + count);
      const written = kv.set(env, at + count);
      // Whoever reserved awaits it; until then a failure is not "unhandled".
      written.catch(() => undefined);
      return { first: at + 1, written };
    });
  return {
    reserve,
    async next(env, count) {
      const { first, written } = await reserve(env, count);
      await written;
      return first;
    },
    current: (env) => serialized(() => read(env)),
  };
}
