import type { Lease } from '../../lib/coordination/index.js';
import type { Storage } from '../../lib/storage/index.js';

const keyvMethods = new Set(['get', 'getMany', 'set', 'setMany', 'delete', 'deleteMany', 'has', 'clear']);
const indexMethods = new Set(['add', 'addMany', 'remove', 'page', 'count']);

export interface RoundTripStore {
  storage: Storage;
  /** Commands sent and not yet answered. */
  pending(): number;
  /** Of those, the ones that are not a lock's release (a caller may send a release and not wait for it). */
  pendingBesidesReleases(): number;
  /**
   * Answers every command sent so far: one round trip of a store across a network. Settles once
   * the store underneath has answered them all (a real store takes its own time to answer).
   */
  round(): Promise<void>;
}

interface Queued {
  release: boolean;
  run: () => Promise<void>;
}

/**
 * A store whose every command waits for the test's `round()`, as a store across a network
 * answers after a round trip: commands sent together share one, commands that wait for each
 * other's answers take one each. Counting rounds counts what a distant store adds to a request.
 */
export function roundTripStore(base: Storage): RoundTripStore {
  let queued: Queued[] = [];
  const later =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>, release = false) =>
    (...args: A): Promise<R> =>
      new Promise<R>((resolve, reject) =>
        queued.push({
          release,
          run: () =>
            fn(...args).then(
              (value) => resolve(value),
              (error: unknown) => reject(error),
            ),
        }),
      );
  const wrap = <O extends object>(target: O, methods: Set<string>): O =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || !methods.has(String(property))) return value;
        return later((...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args));
      },
    });
  const lease = (held: Lease): Lease => ({
    release: later(() => held.release(), true),
    renew: later((ms) => held.renew(ms)),
  });
  const storage: Storage = {
    ...base,
    keyv: (namespace) => wrap(base.keyv(namespace), keyvMethods),
    index: (namespace) => wrap(base.index(namespace), indexMethods),
    writeListed: base.writeListed && later(base.writeListed),
    coordinator: {
      ...base.coordinator,
      tryLock: later(async (key: string, ttlMs: number) => {
        const held = await base.coordinator.tryLock(key, ttlMs);
        return held && lease(held);
      }),
      increment: later((key: string, by?: number) => base.coordinator.increment(key, by)),
    },
  };
  return {
    storage,
    pending: () => queued.length,
    pendingBesidesReleases: () => queued.filter((q) => !q.release).length,
    async round() {
      const now = queued;
      queued = [];
      await Promise.all(now.map((q) => q.run()));
    },
  };
}
