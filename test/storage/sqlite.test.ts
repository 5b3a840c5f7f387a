import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createSqliteStorage, type KeyvBetterSqlite } from '../../adapters/storage/index.js';
import { openSqliteDatabase, usableSqliteDrivers } from '../../adapters/storage/sqlite-driver.js';
import { runStorageContract } from './contract.js';

// Every test runs on each driver this Node can use (sqlite-driver.ts): better-sqlite3 and
// node:sqlite on Node 22, better-sqlite3 alone on Node 20, node:sqlite alone on Node 24.19+.
for (const driver of usableSqliteDrivers()) {
  // A real file, in a folder that does not exist yet: createSqliteStorage must make it.
  await runStorageContract(t, `sqlite (${driver})`, (t) =>
    createSqliteStorage({ path: join(t.testdir(), 'nested', 'dir', 'portico.db'), driver }),
  );

  t.test(`sqlite storage describes itself and creates its file (${driver})`, async (t) => {
    const path = join(t.testdir(), 'data', 'portico.db');
    const storage = createSqliteStorage({ path, driver });
    t.teardown(() => storage.close());
    t.equal(storage.kind, 'sqlite');
    t.equal(storage.shared, false);
    t.ok(existsSync(path));
    t.equal((storage.keyv('ns').store as KeyvBetterSqlite).table.db.driver, driver, 'on the driver asked for');
  });

  t.test(`data survives close and reopen of the same file (${driver})`, async (t) => {
    const path = join(t.testdir(), 'portico.db');
    const first = createSqliteStorage({ path, driver });
    await first.keyv('connections').set('c1', { token: 'secret ✓', scopes: ['a', 'b'] });
    await first.keyv('other').set('c1', 'other namespace');
    await first.close();
    await first.close(); // closing twice is harmless

    const second = createSqliteStorage({ path, driver });
    t.teardown(() => second.close());
    t.same(await second.keyv('connections').get('c1'), { token: 'secret ✓', scopes: ['a', 'b'] });
    t.equal(await second.keyv('other').get('c1'), 'other namespace');
  });

  t.test(`the file is in WAL mode and expired rows are swept on open (${driver})`, async (t) => {
    const path = join(t.testdir(), 'portico.db');
    const storage = createSqliteStorage({ path, driver });
    await storage.keyv('ns').set('short', 'v', 50);
    await storage.keyv('ns').set('long', 'v');
    await storage.close();
    await sleep(100);
    await createSqliteStorage({ path, driver }).close();

    const db = openSqliteDatabase(path, { driver, readonly: true });
    t.teardown(() => db.close());
    t.equal(db.prepare('PRAGMA journal_mode', 'first').get(), 'wal');
    const keys = db.prepare<[], string>('SELECT key FROM portico_kv ORDER BY key', 'first').all();
    t.same(keys, ['long'], 'the expired row is gone from disk');
  });

  t.test(`the sweep of expired rows reads the rows with a TTL, not every row (${driver})`, async (t) => {
    const path = join(t.testdir(), 'portico.db');
    const storage = createSqliteStorage({ path, driver });
    t.teardown(() => storage.close());
    for (let i = 0; i < 50; i++) await storage.keyv('ns').set(`k${i}`, 'v');
    await storage.keyv('ns').set('short', 'v', 1);
    const db = openSqliteDatabase(path, { driver, readonly: true });
    t.teardown(() => db.close());
    const plan = db
      .prepare<[number], { detail: string }>(
        'EXPLAIN QUERY PLAN DELETE FROM portico_kv WHERE expires IS NOT NULL AND expires <= ?',
      )
      .all(Date.now());
    t.match(plan.map((row) => row.detail).join(' | '), /USING INDEX portico_kv_expires/, 'a seek, at any size');
    await sleep(5);
    (storage.keyv('ns').store as KeyvBetterSqlite).table.sweepExpired();
    t.equal(db.prepare('SELECT COUNT(*) FROM portico_kv', 'first').get(), 50, 'the expired row is gone, the rest kept');
  });

  t.test(`setMany reports one success per entry (${driver})`, async (t) => {
    const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db'), driver });
    t.teardown(() => storage.close());
    t.same(
      await storage.keyv('ns').setMany([
        { key: 'a', value: 1 },
        { key: 'b', value: 2 },
      ]),
      [true, true],
    );
  });

  t.test(`operations after close fail loudly rather than return nothing (${driver})`, async (t) => {
    const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db'), driver });
    const kv = storage.keyv('ns');
    await storage.close();
    await t.rejects(kv.get('a'));
  });
}
