import { randomUUID } from 'node:crypto';
import { waitForLock, type Coordinator, type Lease, type LockOptions } from '../../../lib/coordination/index.js';
import { NOW_MS, type Db } from './pool.js';

/**
 * Locks as lease rows and counters as rows, so every instance on the database excludes the
 * others. A lease row holds its holder's token and an expiry on the server's clock: taking a
 * lock inserts the row, or takes over one whose lease ran out (a crashed holder), in one
 * statement; releasing deletes it only while it still holds our token. Not advisory locks:
 * those belong to a session, and a pooled connection would carry them off to other callers.
 */
export function createPostgresCoordinator(db: Db): Coordinator {
  const tryLock = async (key: string, ttlMs: number): Promise<Lease | null> => {
    const token = randomUUID();
    const { rowCount } = await db.quick(
      `INSERT INTO portico_locks (key, token, expires) VALUES ($1, $2, ${NOW_MS} + $3)
       ON CONFLICT (key) DO UPDATE SET token = excluded.token, expires = excluded.expires
       WHERE portico_locks.expires <= ${NOW_MS}`,
      [key, token, Math.max(1, Math.ceil(ttlMs))],
    );
    if (!rowCount) return null;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await db.quick('DELETE FROM portico_locks WHERE key = $1 AND token = $2', [key, token]);
      },
      renew: async (renewMs: number) => {
        if (released) return false;
        const { rowCount } = await db.quick(
          `UPDATE portico_locks SET expires = ${NOW_MS} + $3 WHERE key = $1 AND token = $2 AND expires > ${NOW_MS}`,
          [key, token, Math.max(1, Math.ceil(renewMs))],
        );
        return rowCount === 1;
      },
    };
  };

  return {
    tryLock,
    // A pool: a read may go out on another connection, ahead of the lock's statement (no ordersReads).
    withLock: <T, R>(key: string, fn: (read: R) => Promise<T>, options?: LockOptions<R>) =>
      waitForLock(tryLock, key, fn, options),
    async increment(key: string, by = 1) {
      const { rows } = await db.query<{ value: string }>(
        `INSERT INTO portico_counters (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = portico_counters.value + excluded.value RETURNING value`,
        [key, by],
      );
      // bigint comes back as text; counters stay well within a double's exact range.
      return Number(rows[0]?.value);
    },
    close: async () => {},
  };
}
