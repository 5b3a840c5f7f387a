/** What a deadline is set on: `expire()` is called when it passes. The list fields belong to the deadlines. */
export interface Expiring {
  expire(): void;
  deadlinePrev: Expiring | undefined;
  deadlineNext: Expiring | undefined;
  deadlineAt: number;
}

/**
 * Deadlines for many short-lived attempts without a timer each. Every deadline is "now +
 * timeoutMs", so the order they are set in is the order they pass in: a linked list through
 * the entries, oldest first, lets one unref'd sweep (every quarter of the timeout, between
 * 25 ms and 1 s) expire the late ones from the front, and `clear` unlink in O(1) without a
 * lookup. A deadline fires between `timeoutMs` and `timeoutMs` + one sweep after it was set.
 * An unlinked entry keeps no pointer to its neighbours, so a finished attempt never holds
 * newer ones in memory.
 */
export function createDeadlines(timeoutMs: number) {
  let head: Expiring | undefined;
  let tail: Expiring | undefined;
  let size = 0;
  const every = Math.min(1_000, Math.max(25, Math.floor(timeoutMs / 4)));
  let sweeper: NodeJS.Timeout | undefined;

  const unlink = (entry: Expiring) => {
    const { deadlinePrev: prev, deadlineNext: next } = entry;
    if (prev) prev.deadlineNext = next;
    else head = next;
    if (next) next.deadlinePrev = prev;
    else tail = prev;
    entry.deadlinePrev = undefined;
    entry.deadlineNext = undefined;
    entry.deadlineAt = 0;
    size--;
  };

  const sweep = () => {
    const now = performance.now();
    while (head && head.deadlineAt <= now) {
      const late = head;
      unlink(late);
      late.expire();
    }
    if (size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  return {
    /** Calls `entry.expire()` once `timeoutMs` have passed, unless `clear` came first. */
    set(entry: Expiring): void {
      if (entry.deadlineAt !== 0) unlink(entry);
      entry.deadlineAt = performance.now() + timeoutMs;
      entry.deadlinePrev = tail;
      entry.deadlineNext = undefined;
      if (tail) tail.deadlineNext = entry;
      else head = entry;
      tail = entry;
      size++;
      if (!sweeper) {
        sweeper = setInterval(sweep, every);
        sweeper.unref();
      }
    },
    clear(entry: Expiring): void {
      if (entry.deadlineAt !== 0) unlink(entry);
    },
    close(): void {
      while (head) unlink(head);
      if (sweeper) clearInterval(sweeper);
      sweeper = undefined;
    },
  };
}

export type Deadlines = ReturnType<typeof createDeadlines>;
