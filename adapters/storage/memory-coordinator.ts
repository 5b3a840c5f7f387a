import { waitForLock, type Coordinator, type Lease, type LockOptions } from '../../lib/coordination/index.js';

interface HeldLock {
  /** Identity of the holder: a fresh object per acquisition, so a stale lease cannot release a newer one. */
  readonly token: object;
  readonly expiresAt: number;
}

/** Past this many lock entries, `tryLock` sweeps expired ones so crashed holders do not accumulate. */
const SWEEP_THRESHOLD = 1_000;

/**
 * Locks with expiry and counters for ONE gateway process. JavaScript runs one callback at a time,
 * so plain Map reads and writes with no `await` in between are already atomic.
 * Expiry is checked lazily on the next `tryLock`, which keeps this free of timers (nothing to
 * keep the process alive, nothing to clean up in `close`).
 */
export function createMemoryCoordinator(): Coordinator {
  const locks = new Map<string, HeldLock>();
  const counters = new Map<string, number>();

  const sweep = (now: number): void => {
    for (const [key, held] of locks) if (held.expiresAt <= now) locks.delete(key);
  };

  const tryLock = async (key: string, ttlMs: number): Promise<Lease | null> => {
    const now = Date.now();
    const held = locks.get(key);
    if (held && held.expiresAt > now) return null;
    if (locks.size >= SWEEP_THRESHOLD) sweep(now);
    const token = {};
    locks.set(key, { token, expiresAt: now + ttlMs });
    // Only the holder may release or renew: after expiry someone else may own the key now.
    const mine = () => {
      const current = locks.get(key);
      return current?.token === token && current.expiresAt > Date.now();
    };
    return {
      release: async () => {
        if (mine()) locks.delete(key);
      },
      renew: async (renewMs: number) => {
        if (!mine()) return false;
        locks.set(key, { token, expiresAt: Date.now() + renewMs });
        return true;
      },
    };
  };

  return {
    tryLock,
    withLock: <T, R>(key: string, fn: (read: R) => Promise<T>, options?: LockOptions<R>) =>
      waitForLock(tryLock, key, fn, options, true),
    // tryLock takes the lock when called (no await before it): whatever is sent after comes after.
    ordersReads: true,
    increment: async (key: string, by = 1) => {
      const next = (counters.get(key) ?? 0) + by;
      counters.set(key, next);
      return next;
    },
    close: async () => {
      locks.clear();
      counters.clear();
    },
  };
}
