import { setTimeout as sleep } from 'node:timers/promises';

/** How SQLite contention is waited out (see `createSqliteStorage`). */
export interface BusyOptions {
  /** Longest wait for a lock another connection (or process) holds, retrying asynchronously. Default 1 s. */
  busyWaitMs?: number;
}

export const defaultBusyWaitMs = 1_000;
/**
 * SQLite's own busy wait sleeps *synchronously* (both drivers are synchronous): the whole
 * event loop would stop for every other request. So SQLite gives up at once, and the waiting
 * happens here, between event-loop turns, at the cost of the request that needs the lock only.
 */
export const sqliteBusyTimeoutMs = 0;

/** SQLite's primary result codes for "another connection holds the lock". */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/** True for SQLite's "another connection holds the lock", from either driver. */
export const isSqliteBusy = (error: unknown): boolean => {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  // node:sqlite: code ERR_SQLITE_ERROR with SQLite's (extended) result code in `errcode`.
  if (typeof errcode === 'number') return (errcode & 0xff) === SQLITE_BUSY || (errcode & 0xff) === SQLITE_LOCKED;
  // better-sqlite3: the result code's name.
  return (
    code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'))
  );
};

/**
 * Runs `work` (one synchronous statement or transaction), retrying while the database is
 * locked, with short growing pauses, until `waitMs` have passed; then the busy error goes to
 * the caller (the gateway answers 503 store_unavailable). A transaction that met the lock was
 * rolled back by the driver, so running it again is safe.
 */
export async function retryBusy<T>(work: () => T, waitMs: number): Promise<T> {
  let deadline = 0;
  let pause = 2;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      const now = performance.now();
      if (deadline === 0) deadline = now + waitMs;
      if (now >= deadline) throw error;
      await sleep(Math.min(pause + Math.random() * pause, deadline - now));
      pause = Math.min(pause * 2, 50);
    }
  }
}
