/**
 * Deadlines for many short-lived attempts without a timer each: attempts join a set, one
 * unref'd sweep (every quarter of the timeout, between 25 ms and 1 s) expires the late ones.
 * A deadline fires between `timeoutMs` and `timeoutMs` + one sweep after it was set.
 */
export function createDeadlines(timeoutMs: number) {
  const pending = new Map<() => void, number>();
  const every = Math.min(1_000, Math.max(25, Math.floor(timeoutMs / 4)));
  let sweeper: NodeJS.Timeout | undefined;

  const sweep = () => {
    const now = performance.now();
    for (const [expire, at] of pending) {
      if (at <= now) {
        pending.delete(expire);
        expire();
      }
    }
    if (pending.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  return {
    /** Calls `expire` once `timeoutMs` have passed, unless `clear` came first. */
    set(expire: () => void): void {
      pending.set(expire, performance.now() + timeoutMs);
      if (!sweeper) {
        sweeper = setInterval(sweep, every);
        sweeper.unref();
      }
    },
    clear(expire: () => void): void {
      pending.delete(expire);
    },
    close(): void {
      pending.clear();
      if (sweeper) clearInterval(sweeper);
      sweeper = undefined;
    },
  };
}
