import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createSqliteCheckpointer, type CheckpointerOptions } from '../../adapters/storage/sqlite-checkpoint/index.js';
import { retryBusy } from '../../adapters/storage/sqlite-busy.js';
import { openSqliteDatabase, usableSqliteDrivers, type SqliteDriver } from '../../adapters/storage/sqlite-driver.js';
import { createSqliteStorage } from '../../adapters/storage/sqlite.js';
import { waitFor } from '../helpers/wait.js';

const fixture = (name: string) => new URL(`./fixtures/${name}.ts`, import.meta.url);
const pageBytes = 4096;
const value = 'v'.repeat(3_000);

/** The gateway's side, as the SQLite store opens it: one WAL-mode connection that writes. */
function gatewayDb(t: Tap, driver: SqliteDriver) {
  const path = join(t.testdir({}), 'portico.db');
  const db = openSqliteDatabase(path, { driver });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare<[number, string]>('INSERT INTO kv (k, v) VALUES (?, ?)');
  let next = 0;
  return {
    db,
    path,
    /** Pages the WAL file has room for: its high-water mark (a restarted WAL is written over from its start). */
    walPages: () => Math.floor(statSync(`${path}-wal`).size / pageBytes),
    /** SQLite's own checkpoint threshold on this connection (0: never). */
    // Prepared each time: SQLite writes a pragma's value into the statement when it compiles it.
    autocheckpoint: () => db.prepare<[], number>('PRAGMA wal_autocheckpoint', 'first').get() as number,
    /**
     * Steady writes, one small transaction per event-loop turn as the store's group commit makes
     * them, a timer's pause apart (a gateway reads requests between its commits).
     */
    /** Resolves with the longest any transaction waited for the write lock (ms). */
    async write(rows: number): Promise<number> {
      const tx = db.transaction(() => {
        for (let j = 0; j < 10; j++) insert.run(next + j, value);
      });
      let longest = 0;
      for (let i = 0; i < rows; i += 10) {
        // A restart holds the write lock a moment: waited out as the store's group commit does.
        const began = performance.now();
        await retryBusy(tx, 1_000);
        longest = Math.max(longest, performance.now() - began);
        next += 10;
        await sleep(1);
      }
      return longest;
    },
    count: () => db.prepare<[], number>('SELECT count(*) FROM kv', 'first').get() as number,
  };
}
type Tap = Parameters<Parameters<typeof t.test>[0]>[0];

const checkpointer = (t: Tap, g: ReturnType<typeof gatewayDb>, driver: SqliteDriver, options: CheckpointerOptions) => {
  const c = createSqliteCheckpointer(g.db, driver, options);
  t.teardown(async () => {
    await c.close();
    if (g.db.open) g.db.close();
  });
  return c;
};

for (const driver of usableSqliteDrivers()) {
  t.test(
    `${driver}: steady writes, the worker checkpoints and restarts the WAL; the gateway's connection does not`,
    async (t) => {
      const g = gatewayDb(t, driver);
      const c = checkpointer(t, g, driver, { everyMs: 20, restartFrames: 300, backstopFrames: 20_000 });
      await waitFor(() => c.active, 'the checkpointer to start', 30_000);
      t.equal(g.autocheckpoint(), 20_000, "the gateway's connection checkpoints only past the backstop");
      // About 2 pages a row, some 12,000 pages: left to the gateway's connection (backstop 20,000),
      // the WAL would hold them all.
      await g.write(6_000);
      const pages = g.walPages();
      t.ok(pages < 3_000, `the WAL stayed bounded by the worker's restarts (${pages} pages for ~12,000 written)`);
      t.ok(c.active, 'by the worker: it ran throughout');
      await c.close();
      t.equal(g.autocheckpoint(), 1_000, "closed, the gateway's connection checkpoints as SQLite does by default");
      g.db.close();
      const reopened = openSqliteDatabase(g.path, { driver });
      t.equal(reopened.prepare<[], number>('SELECT count(*) FROM kv', 'first').get(), 6_000, 'every row is there');
      reopened.close();
    },
  );

  t.test(`${driver}: a reader holding its snapshot delays the restart, and nothing else`, async (t) => {
    const g = gatewayDb(t, driver);
    const c = checkpointer(t, g, driver, { everyMs: 20, restartFrames: 200 });
    await waitFor(() => c.active, 'the checkpointer to start', 30_000);
    const reader = openSqliteDatabase(g.path, { driver, readonly: true });
    t.teardown(() => reader.close());
    reader.exec('BEGIN');
    t.equal(reader.prepare<[], number>('SELECT count(*) FROM kv', 'first').get(), 0);
    const longest = await g.write(2_000);
    t.equal(g.count(), 2_000, 'the writes went on');
    // Restarting while the reader stays would hold the write lock again and again, each time for
    // the restart's wait on that reader (seen: writes refused past 1 s).
    t.ok(longest < 200, `no write waited long for the lock (longest ${longest.toFixed(1)} ms)`);
    t.equal(
      reader.prepare<[], number>('SELECT count(*) FROM kv', 'first').get(),
      0,
      'the reader still reads its snapshot',
    );
    reader.exec('COMMIT');
    const held = g.walPages();
    await g.write(4_000);
    const pages = g.walPages();
    // Some 8,000 more pages written: without a restart the WAL would hold them after the first.
    t.ok(pages < held + 2_000, `once the reader left, the WAL restarted (${held} → ${pages} pages)`);
    // The reader's backlog made the file large; a restart truncates it back to keepFrames (2 ×
    // restartFrames), where before it kept its largest size for good.
    t.ok(held > 2_000 && pages < held / 2, `the WAL file shrank after the restart (${held} → ${pages} pages)`);
    t.ok(c.active, 'the worker still checkpoints');
  });

  t.test(`${driver}: once writes stop, the WAL file is emptied and every row is in the database`, async (t) => {
    const g = gatewayDb(t, driver);
    const c = checkpointer(t, g, driver, { everyMs: 20, restartFrames: 300 });
    await waitFor(() => c.active, 'the checkpointer to start', 30_000);
    await g.write(1_000);
    t.ok(g.walPages() > 0, `the WAL holds frames while writes come (${g.walPages()} pages)`);
    await waitFor(() => statSync(`${g.path}-wal`).size === 0, 'the WAL file to be emptied', 10_000);
    t.pass('the WAL file is empty at rest');
    // A reader of the file alone (the database, no WAL) finds every row.
    const copy = `${g.path}.copy`;
    copyFileSync(g.path, copy);
    const alone = openSqliteDatabase(copy, { driver, readonly: true });
    t.equal(
      alone.prepare<[], number>('SELECT count(*) FROM kv', 'first').get(),
      1_000,
      'every row is in the database file',
    );
    alone.close();
    await g.write(100);
    t.equal(g.count(), 1_100, 'writes go on after it');
  });
}

const driver = usableSqliteDrivers()[0] as SqliteDriver;

t.test('with startAfterCommits, no worker runs until that many commits', async (t) => {
  const g = gatewayDb(t, driver);
  const c = checkpointer(t, g, driver, { startAfterCommits: 3, backstopFrames: 20_000 });
  c.committed();
  c.committed();
  await sleep(1_500);
  t.notOk(c.active, 'two commits: no worker');
  t.equal(g.autocheckpoint(), 1_000, "the gateway's connection checkpoints as SQLite does by default");
  c.committed();
  await waitFor(() => c.active, 'the worker after the third commit', 30_000);
  t.equal(g.autocheckpoint(), 20_000);
});

t.test('a worker that fails hands checkpoints back to the gateway, and another is started later', async (t) => {
  const g = gatewayDb(t, driver);
  const c = checkpointer(t, g, driver, { worker: fixture('checkpoint-crash'), retryMs: 300, backstopFrames: 20_000 });
  await waitFor(() => c.active, 'the worker to start', 30_000);
  t.equal(g.autocheckpoint(), 20_000);
  await waitFor(() => !c.active, 'the failure to be seen', 10_000);
  t.equal(g.autocheckpoint(), 1_000, "the gateway's connection checkpoints again");
  await g.write(6_000);
  const pages = g.walPages();
  t.ok(pages < 3_000, `the WAL stayed bounded without the worker (${pages} pages)`);
  await waitFor(() => c.active, 'another worker after retryMs', 30_000);
  t.pass('a new worker started');
});

t.test('a worker that stops reporting is stopped within staleMs; the gateway checkpoints meanwhile', async (t) => {
  const g = gatewayDb(t, driver);
  const c = checkpointer(t, g, driver, {
    worker: fixture('checkpoint-hang'),
    staleMs: 1_000,
    retryMs: 60_000,
    backstopFrames: 20_000,
  });
  await waitFor(() => c.active, 'the worker to start', 30_000);
  const hungAt = Date.now();
  await waitFor(() => !c.active, 'the hung worker to be stopped', 10_000);
  const after = Date.now() - hungAt;
  t.ok(after < 3_000, `stopped ${after} ms after it last reported (staleMs 1,000)`);
  t.equal(g.autocheckpoint(), 1_000, "the gateway's connection checkpoints again");
  await g.write(6_000);
  const pages = g.walPages();
  t.ok(pages < 3_000, `the WAL stayed bounded (${pages} pages)`);
});

t.test('the SQLite store, checkpointing on its worker or not, keeps every write across a reopen', async (t) => {
  const dir = t.testdir({});
  for (const checkpoints of [undefined, false] as const) {
    const path = join(dir, `store-${String(checkpoints)}.db`);
    const storage = createSqliteStorage({ path, ...(checkpoints === undefined ? {} : { checkpoints }) });
    const kv = storage.keyv('ns');
    // Concurrent writes share group commits while the worker (by default) checkpoints beside them.
    await Promise.all(Array.from({ length: 2_000 }, (_, i) => kv.set(`k${i}`, value)));
    await storage.close();
    const reopened = createSqliteStorage({ path, checkpoints: false });
    const kept = await reopened.keyv('ns').getMany(Array.from({ length: 2_000 }, (_, i) => `k${i}`));
    t.ok(
      kept.every((v) => v === value),
      `all 2,000 written and read back (checkpoints: ${String(checkpoints ?? 'default')})`,
    );
    await reopened.close();
  }
});
