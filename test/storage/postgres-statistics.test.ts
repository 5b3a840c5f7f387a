import pg from 'pg';
import t from 'tap';
import type { Storage } from '../../lib/storage/index.js';
import { createPostgresStorage, storageFromUrl } from '../../adapters/storage/index.js';
import { pageSql } from '../../adapters/storage/postgres/ordered-index.js';
import { createDb } from '../../adapters/storage/postgres/pool.js';
import { tableNames } from '../../adapters/storage/postgres/schema.js';
import { createStatisticsUpkeep, needsAnalyze } from '../../adapters/storage/postgres/statistics.js';
import { startTcpCutterFor } from '../faults/tcp-cutter.js';
import { postgresSchema, postgresUrl, requirePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import type { Tap } from './contract.js';

const ENTRIES = 40_000;
const never = 3_600_000;

t.test('the rule is autovacuum’s: 50 rows and 10 % of the table, a table at most once a minute', async (t) => {
  const unanalyzed = { sinceMs: null };
  t.notOk(needsAnalyze({ live: 0, modified: 50, ...unanalyzed }));
  t.ok(needsAnalyze({ live: 0, modified: 51, ...unanalyzed }));
  t.notOk(needsAnalyze({ live: 100_000, modified: 10_050, ...unanalyzed }));
  t.ok(needsAnalyze({ live: 100_000, modified: 10_051, ...unanalyzed }));
  t.notOk(needsAnalyze({ live: 10, modified: 5_000, sinceMs: 59_000 }), 'analyzed less than a minute ago');
  t.ok(needsAnalyze({ live: 10, modified: 5_000, sinceMs: 60_000 }));
});

if (await requirePostgres(t)) {
  await t.test(
    'autovacuum off: an import is analyzed by the storage, and a page reads 100 rows by the index',
    async (t) => {
      const { url, schema } = postgresSchema(t, 'stats_on');
      const warnings: string[] = [];
      const storage = createPostgresStorage({
        url,
        maintainStatistics: { checkEveryMs: 1_000, afterWritesMs: 200 },
        onWarning: (message) => warnings.push(message),
      });
      t.teardown(() => storage.close());
      const raw = await rawClient(t, schema);
      await importEntries(storage, raw);
      const analyzed = await waitFor(
        async () => (await tableStats(raw, schema)).last_analyze ?? undefined,
        'the ANALYZE',
        30_000,
      );
      t.ok(analyzed, `portico_index analyzed at ${String(analyzed)}`);
      t.same(warnings, ['autovacuum is off for Portico tables: Portico runs ANALYZE on them itself'], 'said so once');
      const plan = await pagePlan(raw);
      t.notOk(plan.nodes.includes('Sort'), `no sort of the whole list: ${plan.nodes}`);
      t.match(plan.nodes, /^Limit > Index (Only )?Scan/, 'a LIMIT over an index scan');
      t.ok(plan.listRows > ENTRIES / 2, `the planner knows the list's length: ${plan.listRows} rows (${ENTRIES + 1})`);
      const p50 = await pageP50(storage);
      t.ok(p50 < 15, `a page of 100 p50 ${p50.toFixed(2)} ms`);
    },
  );

  await t.test('maintain_statistics=off leaves the table without statistics (what the upkeep fixes)', async (t) => {
    const { url, schema } = postgresSchema(t, 'stats_off');
    // Through the store URL, as SERVICE_STORE_URL sets it (createPostgresStorage's maintainStatistics: false).
    const storage = storageFromUrl(`${url}&maintain_statistics=off`, {
      onWarning: () => t.fail('no upkeep, no notice'),
    });
    t.teardown(() => storage.close());
    const raw = await rawClient(t, schema);
    await importEntries(storage, raw);
    // The server counts the import (stats reach it within seconds), and nobody analyzes.
    const stats = await waitFor(async () => {
      const s = await tableStats(raw, schema);
      return Number(s.n_mod_since_analyze) >= ENTRIES && s;
    }, 'the import in the server’s counters');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    t.equal(
      (await tableStats(raw, schema)).last_analyze,
      null,
      `never analyzed (${String(stats.n_mod_since_analyze)} rows changed)`,
    );
    const { rows } = await raw.query(
      `SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = $1 AND tablename = 'portico_index'`,
      [schema],
    );
    t.equal(rows[0].n, 0, 'no column statistics');
    // The cliff's cause: the planner takes a list for a few rows. Past a few million rows in the
    // table its guess makes sorting the whole list look cheaper than the index (the 552 ms page).
    const plan = await pagePlan(raw);
    t.ok(plan.listRows < ENTRIES / 100, `the planner guesses ${plan.listRows} rows for a list of ${ENTRIES + 1}`);
    const p50 = await pageP50(storage);
    t.comment(`unanalyzed: ${plan.nodes}; a page of 100 p50 ${p50.toFixed(2)} ms`);
  });

  await t.test('a short-lived opening (the CLI) runs no upkeep', async (t) => {
    const { url, schema } = postgresSchema(t, 'stats_cli');
    // As `portico store copy` and `portico keys` open the store: for one command, then closed.
    const storage = storageFromUrl(url, { shortLived: true, onWarning: () => t.fail('no upkeep, no notice') });
    t.teardown(() => storage.close());
    const raw = await rawClient(t, schema);
    await importEntries(storage, raw);
    await waitFor(async () => {
      const s = await tableStats(raw, schema);
      return Number(s.n_mod_since_analyze) >= ENTRIES && s;
    }, 'the import in the server’s counters');
    // The upkeep's first check comes 2 s after the start; give it more than that.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    t.equal((await tableStats(raw, schema)).last_analyze, null, 'not analyzed');
  });

  await t.test('dead rows past autovacuum’s rule are reported once a table, never vacuumed', async (t) => {
    const { url, schema } = postgresSchema(t, 'stats_dead');
    const raw = await rawClient(t, schema);
    const warnings: [string, Record<string, unknown>][] = [];
    const db = createDb({ url });
    const upkeep = createStatisticsUpkeep(
      db,
      { onError: (error) => t.error(error), onWarning: (message, fields) => warnings.push([message, fields]) },
      { checkEveryMs: never, afterWritesMs: never },
    );
    t.teardown(async () => {
      await upkeep.close();
      await db.end();
    });
    await prepareChanged(raw, schema, 20_000);
    await raw.query(`DELETE FROM portico_index WHERE ord > 5000`);
    await waitFor(async () => (await deadRows(raw, schema)) >= 15_000, 'the dead rows in the counters');
    await upkeep.check();
    await upkeep.check();
    const dead = warnings.filter(([message]) => message.startsWith('dead rows'));
    t.equal(dead.length, 1, 'one line');
    t.match(dead[0]?.[1], { schema, table: 'portico_index', dead: 15_000, live: 5_000 });
    t.ok((await deadRows(raw, schema)) > 10_000, 'left for the operator’s VACUUM');
  });

  await t.test('two instances on one schema: one ANALYZE at a time, the other skips', async (t) => {
    const { url, schema } = postgresSchema(t, 'stats_two');
    const raw = await rawClient(t, schema);
    const errors: unknown[] = [];
    const [a, b] = [1, 2].map(() => upkeepOn(t, url, { analyzeTimeoutMs: 30_000 }, errors));
    await prepareChanged(raw, schema);
    // A's ANALYZE waits behind a lock only ANALYZE and VACUUM take: reads and writes go on.
    await raw.query('BEGIN');
    await raw.query('LOCK TABLE portico_index IN SHARE UPDATE EXCLUSIVE MODE');
    const first = a!.upkeep.check();
    await waitFor(async () => (await advisoryHolders(raw)) === 1, 'A to hold the analyze lock', 10_000);
    t.same(await b!.upkeep.check(), { kind: 'busy' }, 'B does not wait for it, and analyzes nothing');
    await raw.query('ROLLBACK');
    const done = await first;
    t.equal(done.kind, 'analyzed');
    t.ok(done.kind === 'analyzed' && done.tables.includes('portico_index'), 'A analyzed portico_index');
    t.same(await b!.upkeep.check(), { kind: 'fresh' }, 'then B finds nothing left to do');
    t.same(errors, []);
  });

  await t.test('an ANALYZE that cannot finish fails at its deadline, is logged, and requests go on', async (t) => {
    const { url, schema } = postgresSchema(t, 'stats_slow');
    const raw = await rawClient(t, schema);
    const errors: unknown[] = [];
    const storage = createPostgresStorage({
      url,
      maintainStatistics: { checkEveryMs: 200, afterWritesMs: 100, analyzeTimeoutMs: 500 },
      onError: (error) => errors.push(error),
      onWarning: () => {},
    });
    t.teardown(() => storage.close());
    const index = storage.index('slow');
    await index.add('all', 'one', 1);
    await optOut(raw, schema);
    // A lock only ANALYZE and VACUUM take: then an import the upkeep wants to analyze.
    await raw.query('BEGIN');
    await raw.query('LOCK TABLE portico_index IN SHARE UPDATE EXCLUSIVE MODE');
    const started = Date.now();
    await index.addMany(Array.from({ length: 5_000 }, (_, i) => ({ list: 'bulk', id: `b${i}`, order: i })));
    const error = await waitFor(() => errors[0], 'the upkeep’s error', 20_000);
    t.match(String(error), /statistics upkeep.*statement timeout/, `logged after ${Date.now() - started} ms`);
    for (let i = 0; i < 5; i++) {
      const at = performance.now();
      await index.add('all', `id-${i}`, i + 2);
      await storage.keyv('slow').set(`k${i}`, i);
      t.equal((await index.page('all', 100)).length, i + 2);
      t.ok(performance.now() - at < 1_000, 'a write and a page while the ANALYZE waits');
    }
    await raw.query('ROLLBACK');
  });

  await t.test('close cuts off an ANALYZE in flight after closeWaitMs', async (t) => {
    const { url, schema } = postgresSchema(t, 'stats_close');
    const raw = await rawClient(t, schema);
    const errors: unknown[] = [];
    const { upkeep } = upkeepOn(t, url, { analyzeTimeoutMs: 60_000, closeWaitMs: 300 }, errors);
    await prepareChanged(raw, schema);
    await raw.query('BEGIN');
    await raw.query('LOCK TABLE portico_index IN SHARE UPDATE EXCLUSIVE MODE');
    const check = upkeep.check();
    await waitFor(async () => (await advisoryHolders(raw)) === 1, 'the ANALYZE to start', 10_000);
    const started = Date.now();
    await upkeep.close();
    t.ok(Date.now() - started < 2_000, `closed in ${Date.now() - started} ms`);
    t.same(await check, { kind: 'closed' });
    // The server notices the closed connection once the ANALYZE gets its table lock (or at its deadline).
    await raw.query('ROLLBACK');
    await waitFor(async () => (await advisoryHolders(raw)) === 0, 'the lock to go with the session', 10_000);
    t.same(errors, [], 'its own cut-off is not an error');
  });

  await t.test('PostgreSQL gone or hung: a check fails within its deadline, and close is prompt', async (t) => {
    const { url, schema } = postgresSchema(t, 'stats_gone');
    const raw = await rawClient(t, schema);
    await prepareChanged(raw, schema);
    const cutter = await startTcpCutterFor(postgresUrl);
    t.teardown(() => cutter.close());
    const errors: unknown[] = [];
    const { upkeep } = upkeepOn(t, cutter.through(url), { analyzeTimeoutMs: 500 }, errors, { connectTimeoutMs: 500 });
    cutter.cut();
    let started = Date.now();
    t.same(await upkeep.check(), { kind: 'failed' }, `cut: failed in ${Date.now() - started} ms`);
    cutter.restore();
    cutter.slow(Infinity);
    started = Date.now();
    t.same(await upkeep.check(), { kind: 'failed' }, 'hung: failed too');
    t.ok(Date.now() - started < 3_000, `within the deadline (${Date.now() - started} ms)`);
    t.equal(errors.length, 2, 'each logged');
    const hung = upkeep.check();
    started = Date.now();
    await upkeep.close();
    t.ok(Date.now() - started < 3_000, `close in ${Date.now() - started} ms`);
    t.same(await hung, { kind: 'closed' });
    cutter.restore();
  });
}

function upkeepOn(
  t: Tap,
  url: string,
  options: Parameters<typeof createStatisticsUpkeep>[2],
  errors: unknown[],
  pool: { connectTimeoutMs?: number } = {},
) {
  const db = createDb({ url, ...pool });
  const upkeep = createStatisticsUpkeep(
    db,
    { onError: (error) => errors.push(error), onWarning: () => {} },
    { checkEveryMs: never, afterWritesMs: never, ...options },
  );
  t.teardown(async () => {
    await upkeep.close();
    await db.end();
  });
  return { db, upkeep };
}

async function rawClient(t: Tap, schema: string) {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  t.teardown(() => client.end());
  await client.query(`SET search_path = ${schema}`);
  return client;
}

/** The tables, and autovacuum off on each: the test does not depend on the server's setting. */
async function optOut(raw: pg.Client, schema: string) {
  for (const table of tableNames) await raw.query(`ALTER TABLE ${schema}.${table} SET (autovacuum_enabled = false)`);
}

/** `ENTRIES` in one list, through the storage's ordered index, a thousand to a statement. */
async function importEntries(storage: Storage, raw: pg.Client) {
  const index = storage.index('connections');
  await index.add('all', 'first', 0);
  const { rows } = await raw.query<{ schema: string }>('SELECT current_schema() AS schema');
  await optOut(raw, rows[0]!.schema);
  for (let at = 0; at < ENTRIES; at += 1_000) {
    const batch = Array.from({ length: 1_000 }, (_, i) => ({ list: 'all', id: `conn-${at + i}`, order: at + i + 1 }));
    await index.addMany(batch);
    // Other lists beside it, as an import writes: the planner must tell a list from the table.
    await index.addMany(batch.map((e, i) => ({ ...e, list: `user-${(at + i) % 500}` })));
  }
}

/** Rows changed in portico_index, and the server's counters showing them. */
async function prepareChanged(raw: pg.Client, schema: string, rows = 5_000) {
  const db = createDb({ url: postgresUrl, schema });
  await db.query('SELECT 1');
  await db.end();
  await optOut(raw, schema);
  await raw.query(
    `INSERT INTO portico_index (namespace, list, id, ord) SELECT 'n', 'all', 'id-' || i, i FROM generate_series(1, $1::int) i`,
    [rows],
  );
  await waitFor(async () => Number((await tableStats(raw, schema)).n_mod_since_analyze) >= rows, 'the counters');
}

async function tableStats(raw: pg.Client, schema: string) {
  const { rows } = await raw.query<{ last_analyze: Date | null; n_mod_since_analyze: string }>(
    `SELECT last_analyze, n_mod_since_analyze FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'portico_index'`,
    [schema],
  );
  return rows[0] ?? { last_analyze: null, n_mod_since_analyze: '0' };
}

/** Sessions holding the upkeep's advisory lock of this schema (a bigint key: its low 32 bits are `objid`). */
async function deadRows(raw: pg.Client, schema: string): Promise<number> {
  const { rows } = await raw.query<{ n: string }>(
    `SELECT n_dead_tup AS n FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'portico_index'`,
    [schema],
  );
  return Number(rows[0]?.n ?? 0);
}

async function advisoryHolders(raw: pg.Client): Promise<number> {
  const { rows } = await raw.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks
     WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND objid::bigint = (hashtext('portico:analyze:' || current_schema())::bigint & 4294967295)`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * The plan of the first page, the ordered index's own statement: its node types from the top
 * down, and the planner's guess of the list's length (the rows of the node under the Limit).
 */
async function pagePlan(raw: pg.Client): Promise<{ nodes: string; listRows: number }> {
  const { rows } = await raw.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${pageSql.first}`, [
    'connections',
    'all',
    100,
  ]);
  const nodes: PlanNode[] = [];
  for (let node: PlanNode | undefined = rows[0]?.['QUERY PLAN'][0].Plan; node; node = node.Plans?.[0]) nodes.push(node);
  return { nodes: nodes.map((n) => n['Node Type']).join(' > '), listRows: nodes[1]?.['Plan Rows'] ?? 0 };
}
type PlanNode = { 'Node Type': string; 'Plan Rows': number; Plans?: PlanNode[] };

async function pageP50(storage: Storage): Promise<number> {
  const index = storage.index('connections');
  const times: number[] = [];
  for (let i = 0; i < 41; i++) {
    const at = performance.now();
    await index.page('all', 100);
    times.push(performance.now() - at);
  }
  return times.sort((x, y) => x - y)[20]!;
}
