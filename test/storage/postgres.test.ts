import pg from 'pg';
import t from 'tap';
import { createPostgresStorage } from '../../adapters/storage/index.js';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';
import { runStorageContract, type Tap } from './contract.js';

if (await requirePostgres(t)) {
  // One schema for the whole file: the contract gives every subtest its own namespaces and keys.
  const { url, schema } = postgresSchema(t, 'storage');

  await runStorageContract(t, 'postgres', () => createPostgresStorage({ url }));

  t.test('postgres storage describes itself and keeps its tables in its schema', async (t) => {
    const storage = createPostgresStorage({ url });
    t.teardown(() => storage.close());
    t.equal(storage.kind, 'postgres');
    t.equal(storage.shared, true);
    await storage.keyv('layout').set('k', 'v');
    t.equal(await storage.coordinator.increment('layout'), 1);
    const raw = await rawClient(t);
    const { rows } = await raw.query(`SELECT namespace, key FROM ${schema}.portico_kv WHERE namespace = 'layout'`);
    t.same(rows, [{ namespace: 'layout', key: 'k' }], 'a row per key, the namespace its own column');
  });

  t.test('three storages starting at once on a new schema create it once, without error', async (t) => {
    const fresh = postgresSchema(t, 'race');
    const storages = [1, 2, 3].map(() => createPostgresStorage({ url: fresh.url }));
    t.teardown(() => Promise.all(storages.map((s) => s.close())));
    await Promise.all(storages.map((s, i) => s.keyv('race').set(`k${i}`, i)));
    t.same(await storages[0]!.keyv('race').getMany(['k0', 'k1', 'k2']), [0, 1, 2]);
  });

  t.test('a start does not wait behind an ANALYZE or VACUUM in progress on its tables', async (t) => {
    const first = createPostgresStorage({ url });
    await first.keyv('start').set('k', 'v');
    await first.close();
    // The lock ANALYZE and VACUUM hold; CREATE INDEX IF NOT EXISTS would wait for it.
    const raw = await rawClient(t);
    await raw.query('BEGIN');
    await raw.query(`LOCK TABLE ${schema}.portico_index IN SHARE UPDATE EXCLUSIVE MODE`);
    t.teardown(() => raw.query('ROLLBACK'));
    const storage = createPostgresStorage({ url, statementTimeoutMs: 2_000 });
    t.teardown(() => storage.close());
    const started = Date.now();
    t.equal(await storage.keyv('start').get('k'), 'v');
    t.ok(Date.now() - started < 1_000, `answered in ${Date.now() - started} ms`);
  });

  t.test('every statement has a deadline: one that runs too long is cancelled', async (t) => {
    const storage = createPostgresStorage({ url, statementTimeoutMs: 200 });
    t.teardown(() => storage.close());
    const kv = storage.keyv<string>('deadline');
    await kv.set('k', 'v');
    // Hold the row's lock in another session: the write waits, and the server cuts it at 200 ms.
    const raw = await rawClient(t);
    await raw.query('BEGIN');
    await raw.query(`SELECT 1 FROM ${schema}.portico_kv WHERE namespace = 'deadline' AND key = 'k' FOR UPDATE`);
    const started = Date.now();
    await t.rejects(kv.set('k', 'other'));
    const took = Date.now() - started;
    await raw.query('ROLLBACK');
    t.ok(took < 2_000, `cancelled after ${took} ms`);
    t.equal(await kv.get('k'), 'v', 'nothing changed');
  });

  t.test('a database that does not answer fails within the connection deadline', async (t) => {
    // A port nothing listens on (refused at once) and a blackholed one are both bounded.
    const storage = createPostgresStorage({ url: 'postgres://postgres@127.0.0.1:1/none', connectTimeoutMs: 500 });
    t.teardown(() => storage.close());
    const started = Date.now();
    await t.rejects(storage.keyv('x').get('k'));
    t.ok(Date.now() - started < 2_000);
  });

  t.test('close with nothing ever sent still exits cleanly', async () => {
    await createPostgresStorage({ url }).close();
  });
}

async function rawClient(t: Tap) {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  t.teardown(() => client.end());
  return client;
}
