/** A held lock. Releasing twice, or after expiry, is harmless. */
export interface Lease {
  release(): Promise<void>;
  /**
   * Moves the expiry to `ttlMs` from now while the lock is still ours; `false` when it is not
   * (it expired, and may belong to someone else now). Renewing after `release` answers `false`.
   */
  renew(ttlMs: number): Promise<boolean>;
}

export interface LockOptions<R = undefined> {
  /** The lock expires after this long even if never released (crash safety). Default 10 s. */
  ttlMs?: number;
  /** How long `withLock` waits for a held lock before giving up. Default 15 s. */
  waitMs?: number;
  /**
   * Answer once `fn` has, not once the lock is released too: one round trip less on a store
   * across a network. The release is sent before `withLock` answers (on Redis, whose client sends
   * in order, this process's next command comes after it; elsewhere a taker that comes first
   * waits for it as for any holder). A release that fails (the store reports it) leaves the lock
   * to expire at `ttlMs`, and does not fail work that was done. Default false.
   */
  releaseInBackground?: boolean;
  /**
   * What `fn` reads first (the value the lock protects); `fn` gets its answer. Where the
   * coordinator `ordersReads`, the read is sent right behind the first attempt to take the lock,
   * without waiting for the attempt's answer: one round trip less on a store across a network.
   * Its answer is used only when that attempt took the lock; otherwise, and where the coordinator
   * does not order reads, the read is sent once the lock is held.
   */
  read?: () => Promise<R>;
}

/**
 * The atomic operations Keyv does not have: locks with expiry and counters.
 * One in-process implementation (one gateway process) and one on Redis (several processes).
 */
export interface Coordinator {
  /** Takes the lock if it is free; `null` when someone else holds it. */
  tryLock(key: string, ttlMs: number): Promise<Lease | null>;
  /** Runs `fn` holding the lock, waiting for it if needed; throws `LockTimeoutError` past `waitMs`. */
  withLock<T, R = undefined>(key: string, fn: (read: R) => Promise<T>, options?: LockOptions<R>): Promise<T>;
  /** Atomically adds `by` (default 1) and returns the new value. */
  increment(key: string, by?: number): Promise<number>;
  close(): Promise<void>;
  /**
   * A store read sent after `tryLock` was called runs after that attempt: the lock and the store
   * share one connection whose commands run in the order sent (Redis), or the lock is taken at
   * the call (in process). Then a read under the lock may be sent without waiting for it (`read`).
   */
  readonly ordersReads?: boolean;
}

export class LockTimeoutError extends Error {
  constructor(key: string) {
    super(`timed out waiting for lock "${key}"`);
    this.name = 'LockTimeoutError';
  }
}

/**
 * Holds a lease for work that outlives a fixed ttl: renews it every third of `ttlMs`, so a live
 * holder keeps it and a crashed one frees it within `ttlMs`. `onLost` hears once that a renewal
 * failed or found the lock gone. The returned function stops renewing (call it before release).
 */
export function keepRenewed(lease: Lease, ttlMs: number, onLost: (reason: string) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const lost = (reason: string) => {
    if (stopped) return;
    stopped = true;
    onLost(reason);
  };
  const next = () => {
    timer = setTimeout(() => {
      lease.renew(ttlMs).then(
        (held) => {
          if (!held) lost('the lock expired before it was renewed');
          else if (!stopped) next();
        },
        (error: unknown) =>
          lost(`the lock could not be renewed: ${error instanceof Error ? error.message : String(error)}`),
      );
    }, ttlMs / 3);
    // Renewing is no reason to keep a process alive.
    timer.unref();
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** `withLock` on top of `tryLock`: polls with a short, growing pause. Shared by implementations. */
export async function waitForLock<T, R = undefined>(
  tryLock: (key: string, ttlMs: number) => Promise<Lease | null>,
  key: string,
  fn: (read: R) => Promise<T>,
  options: LockOptions<R> = {},
  ordersReads = false,
): Promise<T> {
  const ttlMs = options.ttlMs ?? 10_000;
  const deadline = Date.now() + (options.waitMs ?? 15_000);
  const read = options.read ?? (async () => undefined as R);
  let pause = 5;
  for (let first = true; ; first = false) {
    const attempt = tryLock(key, ttlMs);
    // Sent behind the first attempt, which usually takes the lock; dropped (its failure too) when
    // it does not. A lock found held is read once it is taken: no read wasted per retry.
    const early = first && ordersReads && options.read ? read() : undefined;
    early?.catch(() => undefined);
    const lease = await attempt;
    if (lease) {
      let result: T;
      try {
        result = await fn(await (early ?? read()));
      } catch (error) {
        await releaseAfter(lease, options);
        throw error;
      }
      await releaseAfter(lease, options);
      return result;
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(key);
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
    pause = Math.min(pause * 2, 100);
  }
}

function releaseAfter(lease: Lease, options: LockOptions<unknown>): Promise<void> | undefined {
  const released = lease.release();
  if (!options.releaseInBackground) return released;
  released.catch(() => undefined);
  return undefined;
}
