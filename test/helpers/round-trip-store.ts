import type { Lease } from '../../lib/coordination/index.js';
import type { Storage } from '../../lib/storage/index.js';

const keyvMethods = new Set(['get', 'getMany', 'set', 'setMany', 'delete', 'deleteMany', 'has', 'clear']);
const indexMethods = new Set(['add', 'addMany', 'remove', 'page', 'count']);

export interface RoundTripStore {
  storage: Storage;
  /** Commands sent and not yet answered. */
  pending(): number;
  /** Answers every command sent so far: one round trip of a store across a network. */
  round(): void;
}

/**
 * A store whose every command waits for the test's `round()`, as a store across a network
 * answers after a round trip: commands sent together share one, commands that wait for each
 * other's answers take one each. Counting rounds counts what a distant store adds to a request.
 */
export function roundTripStore(base: Storage): RoundTripStore {
  let queued: Array<() => void> = [];
  const later =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      new Promise<R>((resolve, reject) => queued.push(() => void fn(...args).then(resolve, reject)));
  const wrap = <O extends object>(target: O, methods: Set<string>): O =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || !methods.has(String(property))) return value;
        return later((...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args));
      },
    });
  const lease = (held: Lease): Lease => ({
    release: later(() => held.release()),
    renew: later((ms) => held.renew(ms)),
  });
  const storage: Storage = {
    ...base,
    keyv: (namespace) => wrap(base.keyv(namespace), keyvMethods),
    index: (namespace) => wrap(base.index(namespace), indexMethods),
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
    round() {
      const now = queued;
      queued = [];
      for (const answer of now) answer();
    },
  };
}
