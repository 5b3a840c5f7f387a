import { setTimeout as sleep } from 'node:timers/promises';
import { isSqliteBusy } from './sqlite-busy.js';
import type { SqliteDatabase } from './sqlite-driver.js';

/**
 * Group commit for one SQLite connection. A write runs at once inside a transaction left open
 * for the rest of the event-loop turn, so every later read on this connection sees it; the
 * transaction commits once per turn (`setImmediate`), and each write's promise settles with that
 * commit. An import writes 6–8 rows in several namespaces (value, index entries, event, delivery,
 * sequences): committing each alone wrote the touched pages to the WAL each time, which was most
 * of an import's cost; now concurrent requests share one commit.
 *
 * Writes begun in one turn commit together or not at all: a statement that fails rolls the
 * whole turn back (every writer of the turn hears why), and writes begun while the database is
 * locked elsewhere wait, in order, for one transaction. So a caller may begin dependent writes
 * (an index entry and its value, a sequence number and what it numbers) without awaiting each.
 */
export interface GroupCommit {
  /** Runs `work` (synchronous statements) in this turn's transaction; resolves once it is committed. */
  write<T>(work: () => T): Promise<T>;
  /** Commits what is pending now (before closing the database). */
  flush(): void;
  /** True while a `write`'s work runs in this turn's transaction (see `atomic`). */
  readonly inTurn: boolean;
}

interface Turn {
  done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
  /** The first statement that failed: the turn then rolls back instead of committing. */
  failed?: { error: unknown };
}

/** A write waiting for the lock another connection holds. */
interface Waiting {
  run(turn: Turn | undefined): void;
  fail(error: unknown): void;
}

export function createGroupCommit(db: SqliteDatabase, busyWaitMs: number, onCommit?: () => void): GroupCommit {
  // IMMEDIATE: the write lock is taken at BEGIN, so a lock held elsewhere shows up here (and is
  // waited out below) instead of in the middle of a turn's writes.
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  let current: Turn | undefined;
  let inTurn = false;
  /** Writes begun while BEGIN met a lock, in order; they run together once it is free. */
  let waiting: Waiting[] | undefined;

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
    const turn: Turn = { done, resolve, reject };
    setImmediate(() => end(turn));
    return turn;
  };

  const end = (turn: Turn) => {
    if (current !== turn) return;
    current = undefined;
    try {
      if (turn.failed) throw turn.failed.error;
      commit.run();
      onCommit?.();
      turn.resolve();
    } catch (error) {
      // The writes of this turn are lost together; each writer hears why.
      if (db.inTransaction) rollback.run();
      turn.reject(error);
    }
  };

  /** Runs `work` in `turn` (or alone, in a caller's own transaction); a failure fails the turn. */
  const run = <T>(work: () => T, turn: Turn | undefined): Promise<T> => {
    let value: T;
    try {
      inTurn = turn !== undefined;
      value = work();
    } catch (error) {
      if (turn) turn.failed ??= { error };
      return Promise.reject(error);
    } finally {
      inTurn = false;
    }
    return turn ? turn.done.then(() => value) : Promise.resolve(value);
  };

  /** Retries BEGIN until the lock is free, then runs every waiting write in one turn. */
  const waitForLock = async () => {
    const deadline = performance.now() + busyWaitMs;
    let pause = 2;
    for (;;) {
      await sleep(Math.min(pause + Math.random() * pause, Math.max(0, deadline - performance.now())));
      pause = Math.min(pause * 2, 50);
      const queued = waiting ?? [];
      try {
        // A caller's own transaction may have been opened meanwhile: the writes then join it.
        if (!current && !db.inTransaction) current = open();
      } catch (error) {
        if (isSqliteBusy(error) && performance.now() < deadline) continue;
        waiting = undefined;
        for (const w of queued) w.fail(error);
        return;
      }
      waiting = undefined;
      for (const w of queued) w.run(current);
      return;
    }
  };

  return {
    write<T>(work: () => T): Promise<T> {
      if (waiting) {
        const queue = waiting;
        return new Promise<T>((resolve, reject) => {
          queue.push({ run: (turn) => run(work, turn).then(resolve, reject), fail: reject });
        });
      }
      // A transaction opened by someone else (a caller's own db.transaction) is not ours to end.
      if (!current && db.inTransaction) return run(work, undefined);
      if (!current) {
        try {
          current = open();
        } catch (error) {
          if (!isSqliteBusy(error)) return Promise.reject(error);
          const queue: Waiting[] = [];
          waiting = queue;
          void waitForLock();
          return new Promise<T>((resolve, reject) => {
            queue.push({ run: (turn) => run(work, turn).then(resolve, reject), fail: reject });
          });
        }
      }
      return run(work, current);
    },
    flush() {
      if (current && db.open) end(current);
    },
    get inTurn() {
      return inTurn;
    },
  };
}

/**
 * `fn` as one transaction of its own, or, run by a `write` of the group commit, as part of the
 * turn's, which is one already and fails as one. A transaction nested in the turn would be a
 * SAVEPOINT, and while one is open SQLite copies each page a statement first changes to a
 * sub-journal, spilled to a temporary file past 64 KiB: two thirds of an import's write calls
 * (42 of 63) went there.
 */
export function atomic<A extends unknown[], T>(
  db: SqliteDatabase,
  commits: () => GroupCommit | undefined,
  fn: (...args: A) => T,
): (...args: A) => T {
  const alone = db.transaction(fn);
  return (...args) => (commits()?.inTurn ? fn(...args) : alone(...args));
}
