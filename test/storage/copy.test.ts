import { Readable } from 'node:stream';
import pg from 'pg';
import t from 'tap';
import { createRedisStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import { runCli } from '../../lib/cli/cli.js';
import { createRecordStore } from '../../lib/records/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { postgresSchema, postgresUrl, requirePostgres } from '../helpers/postgres.js';
import { redisUrl, removeRedisKeys, requireRedis } from '../helpers/redis.js';
import { readAll, refOf, many } from '../records/contract.js';

const cli = async (args: string[]) => {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    cwd: process.cwd(),
    env: {},
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
    stdin: Readable.from([]),
    interactive: false,
  });
  return { code, out, err };
};

const ref = refOf({ connectionId: 'c3', providerConfigKey: 'fake' });

t.test(
  'portico store copy: SQLite → PostgreSQL → Redis, then a gateway on Redis lists and proxies as before',
  async (t) => {
    if (!(await requirePostgres(t)) || !(await requireRedis(t))) return;
    const provider = await fakeProvider();
    t.teardown(() => provider.close());
    const providers = [
      {
        name: 'fake-api',
        display_name: 'Fake',
        logo_url: 'https://example.com/l.svg',
        categories: ['test'],
        auth_mode: 'API_KEY',
        docs: 'https://example.com',
        proxy: { base_url: provider.url },
      },
    ];
    const opened: Storage[] = [];
    const open = (storage: Storage) => {
      opened.push(storage);
      return storage;
    };
    t.teardown(async () => {
      for (const s of opened) await s.close();
    });

    // The source: a SQLite gateway with an integration, 30 connections, records and a webhook signing key.
    const file = `${t.testdir({})}/portico.db`;
    const sqlite = open(createSqliteStorage({ path: file }));
    const source = await startGateway(t, { storage: sqlite, providers });
    t.equal(
      (await source.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } })).status,
      201,
    );
    for (let i = 0; i < 30; i++) {
      const res = await source.call('POST', '/connections', {
        body: {
          provider_config_key: 'fake',
          connection_id: `c${i}`,
          credentials: { type: 'API_KEY', apiKey: `sk_secret_${i}` },
        },
      });
      t.equal(res.status, 201);
    }
    const signing = (await source.call('POST', '/environment/webhook-signing-key')).json.data
      .webhook_signing_key as string;
    const records = createRecordStore({ storage: sqlite });
    await records.batchSave(ref, many(250));
    await records.close();
    const listed = await listAll(source);
    t.equal(listed.length, 30);
    await source.gateway.close();

    // SQLite → PostgreSQL.
    const { url: pgUrl, schema } = postgresSchema(t, 'copy');
    const first = await cli(['store', 'copy', '--from', `sqlite://${file}`, '--to', pgUrl]);
    t.equal(first.code, 0, first.err);
    t.match(first.out, /Copied \d+ values in \d+ namespaces and \d+ index entries/);
    t.match(first.err, /connections: \d+ copied/, 'progress on stderr');

    // At rest on PostgreSQL the credentials are as sealed as they were in SQLite.
    const raw = new pg.Client({ connectionString: postgresUrl });
    await raw.connect();
    const { rows } = await raw.query(
      `SELECT count(*)::int AS n FROM ${schema}.portico_kv WHERE value LIKE '%sk_secret_%'`,
    );
    const { rows: connRows } = await raw.query(
      `SELECT count(*)::int AS n FROM ${schema}.portico_kv WHERE namespace = 'connections'`,
    );
    await raw.end();
    t.equal(rows[0].n, 0, 'no plaintext secret in the target');
    t.equal(connRows[0].n, 30, 'every connection copied');

    // A second copy into the now non-empty target is refused, and changes nothing; with the flag it is a harmless re-run.
    const refused = await cli(['store', 'copy', '--from', `sqlite://${file}`, '--to', pgUrl]);
    t.equal(refused.code, 1);
    t.match(refused.err, /already holds data/);
    t.equal(
      (await cli(['store', 'copy', '--from', `sqlite://${file}`, '--to', pgUrl, '--into-non-empty'])).code,
      0,
      'idempotent re-run',
    );

    // PostgreSQL → Redis, into a database number of this test's own (the CLI writes under the default prefix).
    const redisTarget = `${redisUrl.replace(/\/\d*$/, '')}/7`;
    await removeRedisKeys('portico:', redisTarget); // what a crashed earlier run may have left
    t.teardown(() => removeRedisKeys('portico:', redisTarget));
    const second = await cli(['store', 'copy', '--from', pgUrl, '--to', redisTarget, '--json']);
    t.equal(second.code, 0, second.err);
    t.match(JSON.parse(second.out), { ok: true, namespaces: [], indexEntries: Number });
    const redis = open(createRedisStorage({ url: redisTarget }));

    // A gateway on Redis: the same connections, in the same order, and its proxy attaches their credentials.
    const target = await startGateway(t, { storage: redis, providers });
    t.same(await listAll(target), listed, 'the same connections listed, in the same order');
    const call = await target.call('GET', '/proxy/v1/items', {
      headers: { 'provider-config-key': 'fake', 'connection-id': 'c7' },
    });
    t.equal(call.status, 200);
    t.match(JSON.stringify(provider.received.at(-1)?.headers ?? {}), /sk_secret_7/, "the provider got c7's own key");
    const env = await target.call('GET', '/environment');
    t.equal(env.status, 200);
    // Shown masked: its last characters are the same key's.
    t.equal(
      String(env.json?.data?.webhook_signing_key).slice(-4),
      signing.slice(-4),
      'settings came along (the webhook signing key)',
    );
    const copiedRecords = createRecordStore({ storage: redis });
    const { records: read } = await readAll(copiedRecords, ref, { limit: 100 });
    t.equal(read.length, 250, 'records came along');
    await copiedRecords.close();
  },
);

t.test('portico store copy refuses bad arguments (exit 2)', async (t) => {
  t.equal((await cli(['store', 'copy', '--from', 'sqlite://a.db'])).code, 2, '--to missing');
  t.equal(
    (await cli(['store', 'copy', '--from', 'memory://', '--to', 'sqlite://b.db'])).code,
    2,
    'memory is not copyable',
  );
  const bad = await cli(['store', 'copy', '--from', 'mysql://u:hunter2@db/x', '--to', 'sqlite://b.db']);
  t.equal(bad.code, 2);
  t.notMatch(bad.err, /hunter2/, 'no password in the error');
  t.equal((await cli(['store', 'copy', '--from', 'sqlite://same.db', '--to', 'sqlite://same.db'])).code, 2);
});

async function listAll(gw: TestGateway) {
  const res = await gw.call('GET', '/connections?limit=100');
  return (res.json.data as { connection_id: string; provider_config_key: string }[]).map((c) => [
    c.provider_config_key,
    c.connection_id,
  ]);
}
