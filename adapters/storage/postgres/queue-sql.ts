import type { QueueCounts } from '../../../lib/queue/index.js';
import { NOW_MS, type Db } from './pool.js';

export interface JobRow {
  id: string;
  data: string;
  attempts: number;
  slot: string | null;
  claim_token: string;
}

/** A finished row (done and remembered, or dead) whose time is up counts as unknown: its id may be enqueued anew. */
const forgotten = `portico_jobs.expires IS NOT NULL AND portico_jobs.expires <= ${NOW_MS}`;

/**
 * The statements of the PostgreSQL work queue, each one atomic on its own: no transaction spans
 * a handler. Claims use `FOR UPDATE SKIP LOCKED`, so racing workers never wait on, nor take,
 * the same row; every later step is conditional on the claim token, so a worker whose claim
 * lapsed and was taken over changes nothing.
 */
export function queueStatements(db: Db, queue: string) {
  return {
    async add(jobs: { id: string; data: string; delayMs: number }[], slot: number | null = null): Promise<void> {
      await db.query(
        `INSERT INTO portico_jobs (queue, id, data, state, attempts, due, slot)
         SELECT $1, i, d, 'waiting', 0, ${NOW_MS} + w, $5::bigint FROM unnest($2::text[], $3::text[], $4::bigint[]) AS t(i, d, w)
         ON CONFLICT (queue, id) DO UPDATE SET data = excluded.data, state = 'waiting', attempts = 0, due = excluded.due,
           claim_token = NULL, claim_until = NULL, slot = excluded.slot, error = NULL, expires = NULL
         WHERE ${forgotten}`,
        [queue, jobs.map((j) => j.id), jobs.map((j) => j.data), jobs.map((j) => j.delayMs), slot],
      );
    },

    /** Claims up to `limit` due jobs nobody holds, oldest due first. */
    async claim(limit: number, visibilityMs: number): Promise<JobRow[]> {
      const { rows } = await db.quick<JobRow>(
        `UPDATE portico_jobs j SET claim_token = gen_random_uuid()::text, claim_until = ${NOW_MS} + $3
         FROM (SELECT id FROM portico_jobs WHERE queue = $1 AND state = 'waiting' AND due <= ${NOW_MS}
                 AND (claim_until IS NULL OR claim_until <= ${NOW_MS})
               ORDER BY due LIMIT $2 FOR UPDATE SKIP LOCKED) picked
         WHERE j.queue = $1 AND j.id = picked.id
         RETURNING j.id, j.data, j.attempts, j.slot, j.claim_token`,
        [queue, limit, visibilityMs],
      );
      return rows;
    },

    /** Extends the claims still ours; answers the tokens that were. */
    async renew(tokens: string[], visibilityMs: number): Promise<Set<string>> {
      const { rows } = await db.quick<{ claim_token: string }>(
        `UPDATE portico_jobs SET claim_until = ${NOW_MS} + $3
         WHERE queue = $1 AND state = 'waiting' AND claim_token = ANY($2::text[]) RETURNING claim_token`,
        [queue, tokens, visibilityMs],
      );
      return new Set(rows.map((r) => r.claim_token));
    },

    async done(id: string, token: string, keepMs: number): Promise<void> {
      if (keepMs > 0) {
        await db.query(
          `UPDATE portico_jobs SET state = 'done', claim_token = NULL, claim_until = NULL, expires = ${NOW_MS} + $4
           WHERE queue = $1 AND id = $2 AND claim_token = $3`,
          [queue, id, token, keepMs],
        );
      } else {
        await db.query('DELETE FROM portico_jobs WHERE queue = $1 AND id = $2 AND claim_token = $3', [
          queue,
          id,
          token,
        ]);
      }
    },

    /** A counted failed attempt: again after `delayMs`, or a dead letter once out of attempts. */
    async retry(
      id: string,
      token: string,
      delayMs: number,
      maxAttempts: number,
      keepDeadMs: number,
      error: string | null,
    ): Promise<void> {
      await db.query(
        `UPDATE portico_jobs SET attempts = attempts + 1, claim_token = NULL, claim_until = NULL, error = coalesce($6, error),
           state = CASE WHEN attempts + 1 >= $5 THEN 'dead' ELSE 'waiting' END,
           due = CASE WHEN attempts + 1 >= $5 THEN due ELSE ${NOW_MS} + $4 END,
           expires = CASE WHEN attempts + 1 >= $5 THEN ${NOW_MS} + $7 ELSE NULL END
         WHERE queue = $1 AND id = $2 AND claim_token = $3`,
        [queue, id, token, delayMs, maxAttempts, error, keepDeadMs],
      );
    },

    /** Back to waiting without counting the attempt (shutdown). */
    async release(id: string, token: string): Promise<void> {
      await db.quick(
        'UPDATE portico_jobs SET claim_token = NULL, claim_until = NULL WHERE queue = $1 AND id = $2 AND claim_token = $3',
        [queue, id, token],
      );
    },

    async counts(): Promise<QueueCounts> {
      const { rows } = await db.query<Record<keyof QueueCounts, string>>(
        `SELECT
           count(*) FILTER (WHERE state = 'waiting' AND claim_until > ${NOW_MS}) AS active,
           count(*) FILTER (WHERE state = 'waiting' AND (claim_until IS NULL OR claim_until <= ${NOW_MS}) AND due > ${NOW_MS}) AS delayed,
           count(*) FILTER (WHERE state = 'waiting' AND (claim_until IS NULL OR claim_until <= ${NOW_MS}) AND due <= ${NOW_MS}) AS waiting,
           count(*) FILTER (WHERE state = 'dead' AND (expires IS NULL OR expires > ${NOW_MS})) AS dead
         FROM portico_jobs WHERE queue = $1`,
        [queue],
      );
      const row = rows[0];
      return {
        waiting: Number(row?.waiting ?? 0),
        delayed: Number(row?.delayed ?? 0),
        active: Number(row?.active ?? 0),
        dead: Number(row?.dead ?? 0),
      };
    },

    /** Deletes finished rows whose time is up (any queue: one sweep serves all). */
    async sweep(): Promise<void> {
      await db.query(`DELETE FROM portico_jobs WHERE expires IS NOT NULL AND expires <= ${NOW_MS}`);
    },
  };
}

export type QueueStatements = ReturnType<typeof queueStatements>;
