import type pg from 'pg';
import type { Db } from './pool.js';
import { tableNames } from './schema.js';

export interface StatisticsOptions {
  /** How often the tables' change counts are read. Default 30 s. */
  checkEveryMs?: number;
  /** A check this long after start, and after writes of many rows (an import), ahead of the periodic one. Default 2 s. */
  afterWritesMs?: number;
  /** Longest ANALYZE of one table (`statement_timeout`); past it, it is cancelled and tried again at a later check. Default 60 s. */
  analyzeTimeoutMs?: number;
  /** Longest `close` waits for a check in flight before cutting its connection. Default 2 s. */
  closeWaitMs?: number;
}

/** What one check found or did; a value, never an exception (failures go to `onError`). */
export type StatisticsCheck =
  | { kind: 'attended' }
  | { kind: 'untracked' }
  | { kind: 'fresh' }
  | { kind: 'busy' }
  | { kind: 'analyzed'; tables: string[] }
  | { kind: 'failed' }
  | { kind: 'closed' };

export interface StatisticsUpkeep {
  /** Rows a statement changed: enough of them bring the next check forward. */
  wrote(rows: number): void;
  /** Checks now (single-flight: a check in flight is shared). */
  check(): Promise<StatisticsCheck>;
  /** Stops the timers and waits for a check in flight, `closeWaitMs` at most. */
  close(): Promise<void>;
}

export interface StatisticsReport {
  onError: (error: unknown) => void;
  onWarning: (message: string, fields: Record<string, unknown>) => void;
}

interface Table {
  name: string;
  live: number;
  dead: number;
  modified: number;
  /** Since its last ANALYZE, by anyone (on the server's clock); null: never analyzed. */
  sinceMs: number | null;
  /** `autovacuum_enabled = false` on the table: autovacuum leaves it alone whatever the server's setting. */
  optedOut: boolean;
}

/** Rows changed since the last check that bring the next one forward (an import, a relist). */
const burstRows = 1_000;

/**
 * Autovacuum's own rule with its defaults: analyze once more than 50 rows + 10 % of the table
 * changed, and a table at most once a minute (its naptime: a lock table churns every second),
 * except one never analyzed, which an import needs analyzed at once.
 */
export const needsAnalyze = (t: Pick<Table, 'live' | 'modified' | 'sinceMs'>) =>
  t.modified > 50 + 0.1 * t.live && (t.sinceMs === null || t.sinceMs >= 60_000);

/** Autovacuum's vacuum rule (50 rows + 20 % dead), and at least 10,000 dead rows: small tables are not worth a line. */
const bloated = (t: Table) => t.dead >= 10_000 && t.dead > 50 + 0.2 * t.live;

const tablesSql = `
SELECT s.relname AS name, s.n_live_tup AS live, s.n_dead_tup AS dead, s.n_mod_since_analyze AS modified,
  extract(epoch FROM now() - greatest(s.last_analyze, s.last_autoanalyze)) * 1000 AS "sinceMs",
  EXISTS (SELECT 1 FROM unnest(c.reloptions) o WHERE o ~* '^autovacuum_enabled=(f|false|off|n|no|0)$') AS "optedOut"
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.schemaname = $1 AND s.relname = ANY($2::text[])`;

async function readTables(client: pg.Client, schema: string): Promise<Table[]> {
  const { rows } = await client.query<Record<keyof Table, string | boolean | null>>(tablesSql, [schema, tableNames]);
  // Counters are bigint, which the driver hands back as text.
  return rows.map((r) => ({
    name: String(r.name),
    live: Number(r.live),
    dead: Number(r.dead),
    modified: Number(r.modified),
    sinceMs: r.sinceMs === null ? null : Number(r.sinceMs),
    optedOut: r.optedOut === true,
  }));
}

/**
 * Planner statistics for Portico's tables where the server does not keep them. A listing page
 * is an index scan with a LIMIT only while the planner knows how big a list is: a table never
 * analyzed (autovacuum off, a large import) makes it read and sort the whole list (552 ms for
 * a page of 100 at 400,000 connections, 0.27 ms analyzed). Autovacuum's auto-analyze keeps
 * them on a default server, and then this does nothing. Where it is off (on the server, or
 * per table), each check runs `ANALYZE` on the tables past autovacuum's threshold, on a
 * connection of its own with a deadline, under a try-only advisory lock: one instance at a
 * time, and never a wait. VACUUM is left to the operator (heavier, and a choice): dead rows
 * past autovacuum's rule are reported once per table.
 */
export function createStatisticsUpkeep(
  db: Db,
  report: StatisticsReport,
  options: StatisticsOptions = {},
): StatisticsUpkeep {
  const checkEveryMs = options.checkEveryMs ?? 30_000;
  const afterWritesMs = options.afterWritesMs ?? 2_000;
  const analyzeTimeoutMs = options.analyzeTimeoutMs ?? 60_000;
  const closeWaitMs = options.closeWaitMs ?? 2_000;
  const warned = new Set<string>();
  const warnOnce = (key: string, message: string, fields: Record<string, unknown>) => {
    if (warned.has(key)) return;
    warned.add(key);
    report.onWarning(message, { schema: db.schema, ...fields });
  };
  let closed = false;
  let attended = false;
  let pending = 0;
  let soon: NodeJS.Timeout | undefined;
  let running: Promise<StatisticsCheck> | undefined;
  let active: pg.Client | undefined;

  const analyzeDue = async (client: pg.Client, due: Table[]): Promise<StatisticsCheck> => {
    const lock = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
      `portico:analyze:${db.schema}`,
    ]);
    if (lock.rows[0]?.locked !== true) return { kind: 'busy' };
    // Read again under the lock: another instance may have analyzed them since.
    const still = (await readTables(client, db.schema)).filter(
      (t) => due.some((d) => d.name === t.name) && needsAnalyze(t),
    );
    const analyzed: string[] = [];
    for (const table of still) {
      // Closed before its turn (between the lock and the first ANALYZE, say): cut off, not done.
      if (closed) return { kind: 'closed' };
      await client.query(`ANALYZE ${db.schema}.${table.name}`);
      analyzed.push(table.name);
    }
    // The lock is the session's: it ends with the connection, right after.
    return { kind: 'analyzed', tables: analyzed };
  };

  const round = async (client: pg.Client): Promise<StatisticsCheck> => {
    await client.connect();
    const { rows } = await client.query<{ autovacuum: string; track_counts: string }>(
      `SELECT current_setting('autovacuum') AS autovacuum, current_setting('track_counts') AS track_counts`,
    );
    if (rows[0]?.track_counts !== 'on') {
      warnOnce('untracked', 'PostgreSQL track_counts is off: Portico cannot tell when its tables need ANALYZE', {
        advice: 'turn track_counts on, or run ANALYZE on the schema after large imports',
      });
      return { kind: 'untracked' };
    }
    const serverOn = rows[0]?.autovacuum === 'on';
    const unattended = (await readTables(client, db.schema)).filter((t) => !serverOn || t.optedOut);
    attended = serverOn && unattended.length === 0;
    if (unattended.length === 0) return { kind: attended ? 'attended' : 'fresh' };
    warnOnce('unattended', 'autovacuum is off for Portico tables: Portico runs ANALYZE on them itself', {
      autovacuum: serverOn ? 'on, off for these tables' : 'off',
      tables: unattended.map((t) => t.name),
    });
    for (const t of unattended.filter(bloated))
      warnOnce(`dead:${t.name}`, 'dead rows pile up without autovacuum: run VACUUM on this table', {
        table: t.name,
        dead: t.dead,
        live: t.live,
      });
    const due = unattended.filter(needsAnalyze);
    return due.length === 0 ? { kind: 'fresh' } : analyzeDue(client, due);
  };

  const check = (): Promise<StatisticsCheck> => {
    if (closed) return Promise.resolve({ kind: 'closed' });
    running ??= (async () => {
      pending = 0;
      const client = db.client(analyzeTimeoutMs);
      // An error on this connection reaches the statement it fails; the listener keeps it from crashing the process.
      client.on('error', () => {});
      active = client;
      try {
        return await round(client);
      } catch (error) {
        if (closed) return { kind: 'closed' } as const;
        const message = error instanceof Error ? error.message : String(error);
        report.onError(new Error(`PostgreSQL statistics upkeep (schema ${db.schema}): ${message}`, { cause: error }));
        return { kind: 'failed' } as const;
      } finally {
        active = undefined;
        await client.end().catch(() => {});
      }
    })().finally(() => {
      running = undefined;
    });
    return running;
  };

  const schedule = (ms: number) => {
    if (closed || soon) return;
    soon = setTimeout(() => {
      soon = undefined;
      void check();
    }, ms);
    soon.unref();
  };
  const every = setInterval(() => void check(), checkEveryMs);
  every.unref();
  schedule(afterWritesMs);

  return {
    wrote(rows) {
      if (attended || closed) return;
      pending += rows;
      if (pending >= burstRows) schedule(afterWritesMs);
    },
    check,
    async close() {
      closed = true;
      clearInterval(every);
      clearTimeout(soon);
      const inFlight = running;
      if (!inFlight) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), closeWaitMs)));
      const outcome = await Promise.race([inFlight, late]);
      clearTimeout(timer);
      // Cut off: the server stops its statement at the deadline at the latest, and drops the lock with the session.
      if (outcome === 'late') await active?.end().catch(() => {});
      await inFlight;
    },
  };
}

/** The same database, telling `wrote` how many rows each of its writes changed. */
export function countWrites(db: Db, wrote: (rows: number) => void): Db {
  const counted =
    (query: Db['query']): Db['query'] =>
    async <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => {
      const result = await query<R>(sql, params);
      if (result.rowCount && result.command !== 'SELECT') wrote(result.rowCount);
      return result;
    };
  return { ...db, query: counted(db.query), quick: counted(db.quick) };
}

/** The store URL's `maintain_statistics=on|off` (`true|false`), when given. */
export function statisticsSwitch(url: string): boolean | undefined {
  const value = new URL(url).searchParams.get('maintain_statistics');
  if (value === null) return undefined;
  if (/^(on|true)$/i.test(value)) return true;
  if (/^(off|false)$/i.test(value)) return false;
  throw new Error(`maintain_statistics takes on or off, not "${value}"`);
}
