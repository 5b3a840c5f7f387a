import type pg from 'pg';

/**
 * Portico's tables. Text keys are `COLLATE "C"`: byte order, as the other back ends compare ids,
 * whatever the database's locale. Times are the server's epoch ms (one clock for all instances),
 * except Keyv expiry, which Keyv itself decides on the caller's clock, as on every back end.
 */
const TABLES = `
CREATE TABLE IF NOT EXISTS portico_kv (
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  expires bigint,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX IF NOT EXISTS portico_kv_expires ON portico_kv (expires) WHERE expires IS NOT NULL;
CREATE TABLE IF NOT EXISTS portico_index (
  namespace text COLLATE "C" NOT NULL,
  list text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  ord double precision NOT NULL,
  PRIMARY KEY (namespace, list, id)
);
CREATE INDEX IF NOT EXISTS portico_index_order ON portico_index (namespace, list, ord, id);
CREATE TABLE IF NOT EXISTS portico_locks (
  key text COLLATE "C" PRIMARY KEY,
  token text NOT NULL,
  expires bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS portico_counters (
  key text COLLATE "C" PRIMARY KEY,
  value bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS portico_jobs (
  queue text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  data text NOT NULL,
  state text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  due bigint NOT NULL,
  claim_token text,
  claim_until bigint,
  slot bigint,
  error text,
  expires bigint,
  PRIMARY KEY (queue, id)
);
CREATE INDEX IF NOT EXISTS portico_jobs_due ON portico_jobs (queue, due) WHERE state = 'waiting';
CREATE INDEX IF NOT EXISTS portico_jobs_expires ON portico_jobs (expires) WHERE expires IS NOT NULL;
CREATE TABLE IF NOT EXISTS portico_schedules (
  queue text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  every_ms bigint NOT NULL,
  data text NOT NULL,
  next bigint NOT NULL,
  PRIMARY KEY (queue, id)
);`;

/** Every table above: what the statistics upkeep (statistics.ts) looks after. */
export const tableNames = [...TABLES.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((m) => m[1] as string);

/** Every table and index above. */
const relations = [...TABLES.matchAll(/CREATE (?:TABLE|INDEX) IF NOT EXISTS (\w+)/g)].map((m) => m[1] as string);

/**
 * Creates the schema and tables if missing, in one transaction under an advisory lock: `IF NOT
 * EXISTS` alone is not safe when several instances start at once (two creators of one table
 * can both pass the check, and one fails on the catalog's unique index).
 */
export async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    // All there (every start but the first): no DDL. `CREATE INDEX IF NOT EXISTS` locks its table
    // before it looks, and would wait behind an ANALYZE or VACUUM in progress.
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
       WHERE s.nspname = $1 AND c.relname = ANY($2::text[])`,
      [schema, relations],
    );
    if (rows[0]?.n === relations.length) return;
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`portico:schema:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(TABLES);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
