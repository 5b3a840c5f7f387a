import { retryBusy } from './sqlite-busy.js';
import type { SqliteDatabase } from './sqlite-driver.js';

/**
 * Group commit for one SQLite connection. A write runs at once inside a transaction left open
 * for the rest of the event-loop turn, so every later read on this connection sees it; the
 * transaction commits once per turn (`setImmediate`), and each write's promise settles with that
 * commit. An import writes 6–8 rows in several namespaces (value, index entries, event, delivery,
 * sequences): committing each alone wrote the touched pages to the WAL each time, which was most
 * of an import's cost; now concurrent requests share one commit.
 */
export interface GroupCommit {
  /** Runs `work` (synchronous statements) in this turn's transaction; resolves once it is committed. */
  write<T>(work: () => T): Promise<T>;
  /** Commits what is pending now (before closing the database). */
  flush(): void;
}

interface Turn {
  done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export function createGroupCommit(db: SqliteDatabase, busyWaitMs: number): GroupCommit {
  // IMMEDIATE: the write lock is taken at BEGIN, so a lock held elsewhere shows up here (and is
  // waited out by retryBusy) instead of in the middle of a turn's writes.
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  let current: Turn | undefined;

  const open = (): Turn => {
    begin.run();
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A turn whose only write threw has no one waiting on it.
    done.catch(() => undefined);
    const turn = { done, resolve, reject };
    setImmediate(() => end(turn));
    return turn;
  };

  const end = (turn: Turn) => {
    if (current !== turn) return;
    current = undefined;
    try {
      commit.run();
      turn.resolve();
    } catch (error) {
      // The writes of this turn are lost together; each writer hears why.
      if (db.inTransaction) rollback.run();
      turn.reject(error);
    }
  };

  return {
    async write<T>(work: () => T): Promise<T> {
      const { value, turn } = await retryBusy(() => {
        // A transaction opened by someone else (a caller's own db.transaction) is not ours to end.
        if (!current && db.inTransaction) return { value: work(), turn: undefined };
        current ??= open();
        return { value: work(), turn: current };
      }, busyWaitMs);
      if (turn) await turn.done;
      return value;
    },
    flush() {
      if (current && db.open) end(current);
    },
  };
}
