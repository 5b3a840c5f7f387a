import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { runStorageContract } from './contract.js';

// A real file, in a folder that does not exist yet: createSqliteStorage must make it.
await runStorageContract(t, 'sqlite', (t) =>
  createSqliteStorage({ path: join(t.testdir(), 'nested', 'dir', 'portico.db') }),
);

t.test('sqlite storage describes itself and creates its file', async (t) => {
  const path = join(t.testdir(), 'data', 'portico.db');
  const storage = createSqliteStorage({ path });
  t.teardown(() => storage.close());
  t.equal(storage.kind, 'sqlite');
  t.equal(storage.shared, false);
  t.ok(existsSync(path));
});

t.test('data survives close and reopen of the same file', async (t) => {
  const path = join(t.testdir(), 'portico.db');
  const first = createSqliteStorage({ path });
  await first.keyv('connections').set('c1', { token: 'secret ✓', scopes: ['a', 'b'] });
  await first.keyv('other').set('c1', 'other namespace');
  await first.close();
  await first.close(); // closing twice is harmless

  const second = createSqliteStorage({ path });
  t.teardown(() => second.close());
  t.same(await second.keyv('connections').get('c1'), { token: 'secret ✓', scopes: ['a', 'b'] });
  t.equal(await second.keyv('other').get('c1'), 'other namespace');
});

t.test('the file is in WAL mode and expired rows are swept on open', async (t) => {
  const path = join(t.testdir(), 'portico.db');
  const storage = createSqliteStorage({ path });
  await storage.keyv('ns').set('short', 'v', 50);
  await storage.keyv('ns').set('long', 'v');
  await storage.close();
  await sleep(100);
  await createSqliteStorage({ path }).close();

  const db = new Database(path, { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  const keys = db.prepare<[], { key: string }>('SELECT key FROM portico_kv ORDER BY key').all();
  t.same(
    keys.map((row) => row.key),
    ['long'],
    'the expired row is gone from disk',
  );
});

t.test('setMany reports one success per entry', async (t) => {
  const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db') });
  t.teardown(() => storage.close());
  t.same(
    await storage.keyv('ns').setMany([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ]),
    [true, true],
  );
});

t.test('operations after close fail loudly rather than return nothing', async (t) => {
  const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db') });
  const kv = storage.keyv('ns');
  await storage.close();
  await t.rejects(kv.get('a'));
});
