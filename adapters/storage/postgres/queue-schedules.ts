import { NOW_MS, type Db } from './pool.js';

/**
 * Repeatable schedules of one queue as rows. Slots are multiples of the period on the server's
 * clock, the same for every instance. Firing is one statement: the due rows are locked
 * (`SKIP LOCKED`: an instance firing at the same moment passes them by), each gets one job for
 * its latest due slot (missed slots collapse into one) and moves to the slot after now. The job
 * id names the slot, so a slot can only ever produce one job.
 */
export function scheduleStatements(db: Db, queue: string) {
  return {
    async upsert(id: string, everyMs: number, data: string): Promise<void> {
      // The same period keeps its next slot: a slot due while every instance was down still fires.
      await db.query(
        `INSERT INTO portico_schedules (queue, id, every_ms, data, next)
         VALUES ($1, $2, $3::bigint, $4, (${NOW_MS} / $3::bigint) * $3::bigint + $3::bigint)
         ON CONFLICT (queue, id) DO UPDATE SET data = excluded.data, every_ms = excluded.every_ms,
           next = CASE WHEN portico_schedules.every_ms = excluded.every_ms THEN portico_schedules.next ELSE excluded.next END`,
        [queue, id, everyMs, data],
      );
    },

    async remove(id: string): Promise<void> {
      await db.query('DELETE FROM portico_schedules WHERE queue = $1 AND id = $2', [queue, id]);
    },

    async next(id: string): Promise<number | null> {
      const { rows } = await db.query<{ next: string }>(
        'SELECT next FROM portico_schedules WHERE queue = $1 AND id = $2',
        [queue, id],
      );
      return rows[0] ? Number(rows[0].next) : null;
    },

    /** Fires every due schedule once; answers how many schedules the queue has (0: no need to look often). */
    async fire(): Promise<{ fired: number; total: number }> {
      const { rows } = await db.query<{ fired: string; total: string }>(
        `WITH due AS (
           SELECT id, every_ms, data, next + ((${NOW_MS} - next) / every_ms) * every_ms AS slot
           FROM portico_schedules WHERE queue = $1 AND next <= ${NOW_MS} FOR UPDATE SKIP LOCKED
         ), moved AS (
           UPDATE portico_schedules s SET next = due.slot + due.every_ms FROM due WHERE s.queue = $1 AND s.id = due.id
         ), added AS (
           INSERT INTO portico_jobs (queue, id, data, state, attempts, due, slot)
           SELECT $1, due.id || '@' || due.slot, due.data, 'waiting', 0, ${NOW_MS}, due.slot FROM due
           ON CONFLICT (queue, id) DO NOTHING
         )
         SELECT (SELECT count(*) FROM due) AS fired, (SELECT count(*) FROM portico_schedules WHERE queue = $1) AS total`,
        [queue],
      );
      return { fired: Number(rows[0]?.fired ?? 0), total: Number(rows[0]?.total ?? 0) };
    },
  };
}
