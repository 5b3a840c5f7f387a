import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createRedisStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { devKey, prodKey } from '../helpers/gateway.js';
import { uniquePrefix } from '../helpers/redis.js';
import { passwordRedis, probes, refusals, type Targets } from './attacker.js';
import { bundleScript } from './fixtures.js';
import { json, scriptSetup, waitFor } from './setup.js';

const prodApiKey = 'sk_prod_customer_secret_0042';

/**
 * A dev key holder deploys scripts that try every way to the gateway's secrets, at the module's
 * top level (at deploy) and inside runs. Nothing secret may show in any answer, log line, record
 * or webhook; the gateway keeps proxying meanwhile; the prod environment's data stays out of reach.
 */
async function attack(
  t: Test,
  storage: Storage,
  encryptionKey: string,
  targets: Omit<Targets, 'gateway'>,
  extraSecrets: string[],
) {
  const s = await scriptSetup(t, {
    respond: (req, res) => json(res, { path: req.url }),
    scripts: { workers: 1, heapMb: 96, bundleDir: join(targets.dir, '..', 'bundles') },
    gateway: { storage, encryptionKeys: encryptionKey },
  });
  const secrets = [encryptionKey, devKey, prodKey, prodApiKey, ...extraSecrets];
  const leaked = (text: string) => secrets.filter((secret) => text.includes(secret));
  t.equal(
    (await s.gw.call('POST', '/integrations', { key: prodKey, body: { unique_key: 'fake', provider: 'fake-api' } }))
      .status,
    201,
  );
  t.equal(
    (
      await s.gw.call('POST', '/connections', {
        key: prodKey,
        body: {
          provider_config_key: 'fake',
          connection_id: 'c1',
          credentials: { type: 'API_KEY', apiKey: prodApiKey },
        },
      })
    ).status,
    201,
  );
  const header = probes({ ...targets, gateway: s.gw.url });

  // At deploy: the module's top level runs in a script process; its error comes back.
  const thrown = await s.gw.call('POST', '/scripts/deploy', {
    body: { scripts: [{ integration: 'fake', name: 'x', bundle: bundleScript(`${header}\nthrow new Error(top);`) }] },
  });
  t.equal(thrown.status, 400);
  t.same(leaked(thrown.text), [], 'the deploy error holds no secret');
  for (const refusal of refusals) t.match(thrown.text, refusal, `top level: ${refusal}`);

  const action = bundleScript(`${header}
const forge = () => new Promise((resolve) => {
  const h = (m) => { if (m && m.id === 424242) { process.off('message', h); resolve(JSON.stringify(m)); } };
  process.on('message', h);
  process.send({ type: 'call', id: 424242, method: 'getConnection', args: ['prod', 'fake', 'c1'] });
  setTimeout(() => resolve('no reply'), 5000);
});
export default createAction({ input: z.object({}), output: z.object({ top: z.string(), run: z.string(), forged: z.string() }),
  exec: async (s) => { const run = await probe(); const forged = await forge(); await s.log(top + run, { level: 'error' }); return { top, run, forged }; } });`);
  const sync = bundleScript(`${header}
export default createSync({ frequency: 'every hour', autoStart: false, models: { Loot: z.object({ id: z.string(), text: z.string() }) },
  exec: async (s) => { await s.batchSave([{ id: 'loot', text: top + '\\n' + await probe() }], 'Loot'); } });`);
  const deployed = await s.gw.call('POST', '/scripts/deploy', {
    body: {
      scripts: [
        { integration: 'fake', name: 'attack', bundle: action },
        { integration: 'fake', name: 'loot', bundle: sync },
      ],
    },
  });
  t.equal(deployed.status, 200, deployed.text);

  // The run and 40 proxied calls at once: the gateway keeps serving.
  const proxied = Promise.all(
    Array.from(
      { length: 40 },
      async (_, i) =>
        (
          await s.gw.call('GET', `/proxy/ping/${i}`, {
            headers: { 'provider-config-key': 'fake', 'connection-id': 'c1' },
          })
        ).status,
    ),
  );
  const run = await s.action('attack', {});
  t.same(await proxied, Array(40).fill(200), 'every proxied call was answered during the attack');
  t.equal(run.status, 200, run.text);
  t.same(leaked(run.text), [], 'the action output holds no secret');
  for (const refusal of refusals) t.match(run.json.run, refusal, `inside a run: ${refusal}`);
  t.match(run.json.forged, /sk_fake_script_key/, "a forged call naming prod answers with the run's own connection");

  const synced = await s.syncOnce('loot');
  t.equal(synced.latest_run.status, 'success');
  const records = await s.gw.call('GET', '/records?model=Loot', {
    headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
  });
  t.equal(records.json.records.length, 1);
  const prodRecords = await s.gw.call('GET', '/records?model=Loot', {
    key: prodKey,
    headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
  });
  t.same(prodRecords.json?.records ?? [], [], 'nothing was written to prod');
  const logs = await s.gw.call('GET', '/logs?script=attack');
  t.ok(logs.json.data.length > 0);
  await waitFor(() => s.webhooks().some((w) => w.type === 'sync'), 'the sync webhook');
  for (const [what, text] of [
    ['records', records.text],
    ['logs', logs.text],
    ['webhooks', JSON.stringify(s.webhooks())],
  ] as const) {
    t.same(leaked(text), [], `the ${what} hold no secret`);
  }
  const prodConnection = await s.gw.call('GET', '/connections/c1?provider_config_key=fake', { key: prodKey });
  t.equal(prodConnection.json.data.credentials.apiKey, prodApiKey, "prod's connection is untouched");
  return { run: run.json.run as string };
}

t.test('SQLite store with its key file beside it: no probe reads either', async (t) => {
  const dir = join(t.testdir({ data: {}, bundles: {} }), 'data');
  const encryptionKey = randomBytes(32).toString('base64');
  const store = join(dir, 'portico.db');
  const keyFile = join(dir, 'encryption.key');
  writeFileSync(keyFile, `${encryptionKey}\n`, { mode: 0o600 });
  const storage = createSqliteStorage({ path: store });
  t.teardown(() => storage.close());
  await attack(t, storage, encryptionKey, { dir, store, keyFile, redisPort: null }, []);
});

t.test('Redis store behind a password: a raw socket gets NOAUTH', async (t) => {
  const dir = join(t.testdir({ data: {}, bundles: {} }), 'data');
  const password = `redis_pw_${randomBytes(12).toString('hex')}`;
  const port = await passwordRedis(t, dir, password);
  const encryptionKey = randomBytes(32).toString('base64');
  const keyFile = join(dir, 'secrets.env');
  writeFileSync(keyFile, `SERVICE_ENCRYPTION_KEY=${encryptionKey}\n`);
  const storage = createRedisStorage({ url: `redis://:${password}@127.0.0.1:${port}`, prefix: uniquePrefix('attack') });
  t.teardown(() => storage.close());
  const { run } = await attack(
    t,
    storage,
    encryptionKey,
    { dir, store: join(dir, 'dump.rdb'), keyFile, redisPort: port },
    [password],
  );
  t.match(run, /redis=-NOAUTH/, 'the script reached Redis, which wanted the password it does not have');
});
