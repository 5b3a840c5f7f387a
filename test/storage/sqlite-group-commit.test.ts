import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { createGroupCommit } from '../../adapters/storage/sqlite-commit.js';
import { openSqliteDatabase, usableSqliteDrivers, type SqliteDriver } from '../../adapters/storage/sqlite-driver.js';

/** Write system calls this process has made so far (Linux). */
const writeCalls = () => Number(/^syscw: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
const walBytes = (path: string) => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;

/** 200 writes begun in one event-loop turn (values, index entries, deletes): what concurrent imports do. */
async function burst(path: string, groupCommit: boolean, driver: SqliteDriver) {
  const storage = createSqliteStorage({ path, groupCommit, driver });
  const kv = storage.keyv<{ n: number }>('things');
  const index = storage.index('things');
  await kv.set('warm', { n: 0 });
  const before = walBytes(path);
  await Promise.all(
    Array.from({ length: 100 }, (_, n) => Promise.all([kv.set(`k${n}`, { n }), index.add('all', `k${n}`, n + 1)])),
  );
  return { storage, grew: walBytes(path) - before };
}

for (const driver of usableSqliteDrivers()) {
  t.test(
    `writes begun in the same turn share one commit, and each is durable once it resolves (${driver})`,
    async (t) => {
      const path = join(t.testdir(), 'grouped.db');
      const { storage, grew } = await burst(path, true, driver);
      t.teardown(() => storage.close());
      // Another connection (another process could do the same) sees every write once they resolved.
      const other = openSqliteDatabase(path, { driver, readonly: true });
      t.teardown(() => other.close());
      t.equal(other.prepare(`SELECT COUNT(*) FROM portico_kv WHERE namespace = 'things'`, 'first').get(), 101);
      t.equal(other.prepare(`SELECT COUNT(*) FROM portico_index`, 'first').get(), 100);
      t.same(
        (await storage.index('things').page('all', 3)).map((p) => p.id),
        ['k0', 'k1', 'k2'],
      );

      // One commit per write appends at least one 4 KiB page per write to the WAL: 200 here.
      const alone = await burst(join(t.testdir(), 'alone.db'), false, driver);
      t.teardown(() => alone.storage.close());
      t.ok(alone.grew >= 200 * 4096, `each write alone: ${alone.grew} WAL bytes`);
      t.ok(grew < alone.grew / 10, `grouped: ${grew} WAL bytes, against ${alone.grew} one commit per write`);
    },
  );

  t.test(`a turn's writes go to the WAL alone, with no journal file beside it (${driver})`, async (t) => {
    // What imports write (bench/connections.ts): a value, and an entry in each of nine lists,
    // four of them ordered, one the import's own end user's, five keyed by a search word.
    const path = join(t.testdir(), 'imports.db');
    const storage = createSqliteStorage({ path, driver, pageReader: false });
    t.teardown(() => storage.close());
    const kv = storage.keyv<{ n: number; pad: string }>('connections');
    const index = storage.index('connections');
    const pad = 'x'.repeat(500);
    const importOne = (n: number) => {
      const id = `conn-${n}`;
      const ordered = ['all', 'integration:api', `end_user:user-${n}`, `integration:api\u001fend_user:user-${n}`];
      const words = [id, `${n}`, `user-${n}@example.com`, `${n}@example.com`, 'example.com'];
      return Promise.all([
        kv.set(id, { n, pad }),
        index.addMany([
          ...ordered.map((list) => ({ list, id, order: n + 1 })),
          ...words.map((word) => ({ list: 'search', id: `${word}\u0000${id}`, order: 0 })),
        ]),
      ]);
    };
    // 16 imports a turn: the group commit's shape under load. Under 100 commits and 1,000
    // frames, so no checkpoint starts the WAL again: its size counts the frames written.
    const turn = (k: number) => Promise.all(Array.from({ length: 16 }, (_, i) => importOne(k * 16 + i)));
    for (let k = 0; k < 5; k++) await turn(k);
    const wal = walBytes(path);
    const calls = writeCalls();
    for (let k = 5; k < 20; k++) await turn(k);
    const made = writeCalls() - calls;
    const frames = (walBytes(path) - wal) / (24 + 4096);
    t.ok(frames > 20, `the WAL grew by ${frames} frames, and was not started again meanwhile`);
    // Two calls a frame (its header, its page). A SAVEPOINT per batch inside the turn made SQLite
    // copy every page it changed to a sub-journal, a temporary file past 64 KiB: 14× the calls
    // (8,642 for 623 frames, `atomic` made to nest). The count is the whole process's: the test
    // runner's output goes out meanwhile, and on a loaded machine a full pipe takes a line in
    // several calls (CI saw 16 more than 2 a frame), so the bound sits between the two.
    t.ok(made < 2.5 * frames, `${made} write calls for ${frames} WAL frames in 15 turns`);
    t.equal(await index.count('all'), 320, 'every import is listed');
    t.same((await kv.get('conn-319'))?.n, 319);
  });

  t.test(`a write is visible to reads on the same storage before its commit (${driver})`, async (t) => {
    const storage = createSqliteStorage({ path: join(t.testdir(), 'p.db'), driver });
    t.teardown(() => storage.close());
    const kv = storage.keyv<string>('ns');
    let committed = false;
    const written = kv.set('a', 'one').then(() => {
      committed = true;
    });
    const deleted = kv.set('b', 'two').then(() => kv.delete('b'));
    // Microtasks only: Keyv's own awaits pass, the statement runs, the turn has not ended.
    for (let i = 0; i < 50; i++) await null;
    t.equal(await kv.get('a'), 'one');
    t.equal(committed, false, 'read before the commit');
    await Promise.all([written, deleted]);
    t.equal(await kv.get('b'), undefined);
    t.equal(await kv.get('a'), 'one');
  });

  t.test(`closing the storage commits writes not yet committed (${driver})`, async (t) => {
    const path = join(t.testdir(), 'p.db');
    const storage = createSqliteStorage({ path, driver });
    const write = storage.keyv<string>('ns').set('late', 'kept');
    // Microtasks only: Keyv reaches the statement, the turn (and its commit) has not ended.
    for (let i = 0; i < 50; i++) await null;
    await storage.close();
    await write;
    const reopened = createSqliteStorage({ path, driver });
    t.teardown(() => reopened.close());
    t.equal(await reopened.keyv<string>('ns').get('late'), 'kept');
  });
}

for (const driver of usableSqliteDrivers()) {
  t.test(`a statement that fails takes every write of its turn down with it (${driver})`, async (t) => {
    const path = join(t.testdir(), 'p.db');
    const storage = createSqliteStorage({ path, driver });
    t.teardown(() => storage.close());
    const kv = storage.keyv<string>('ns');
    const db = openSqliteDatabase(path, { driver });
    t.teardown(() => db.close());
    const commits = createGroupCommit(db, 1_000);
    const insert = db.prepare('INSERT INTO portico_kv (namespace, key, value) VALUES (?, ?, ?)');
    // An index entry and its value begun together: the second fails, so neither may stay.
    const first = commits.write(() => insert.run('ns', 'entry', '{"value":"listed"}'));
    const second = commits.write(() => {
      throw new Error('disk full');
    });
    await t.rejects(second, /disk full/);
    await t.rejects(first, /disk full/, 'the write that ran is refused too');
    t.equal(await kv.get('entry'), undefined, 'nothing of the turn was committed');
    await commits.write(() => insert.run('ns', 'after', '{"value":"kept"}'));
    t.equal(await kv.get('after'), 'kept', 'the next turn commits');
  });

  t.test(`writes begun while another connection holds the lock commit together, in order (${driver})`, async (t) => {
    const path = join(t.testdir(), 'p.db');
    const storage = createSqliteStorage({ path, driver, busyWaitMs: 2_000 });
    t.teardown(() => storage.close());
    const kv = storage.keyv<number>('ns');
    await kv.set('n', 0);
    const other = openSqliteDatabase(path, { driver });
    t.teardown(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.exec('COMMIT'), 100);
    const writes = [kv.set('n', 1), kv.set('n', 2), kv.set('m', 3)];
    await Promise.all(writes);
    t.equal(await kv.get('n'), 2, 'the later write of the same key wins');
    t.equal(await kv.get('m'), 3);

    const short = createSqliteStorage({ path, driver, busyWaitMs: 100, pageReader: false });
    t.teardown(() => short.close());
    other.exec('BEGIN IMMEDIATE');
    t.teardown(() => other.inTransaction && other.exec('ROLLBACK'));
    const refused = [short.keyv<number>('ns').set('x', 1), short.keyv<number>('ns').set('y', 2)];
    for (const write of refused) await t.rejects(write, 'the lock outlasted the wait: refused');
    other.exec('ROLLBACK');
    t.equal(await short.keyv<number>('ns').get('x'), undefined, 'nothing was written');
  });
}
