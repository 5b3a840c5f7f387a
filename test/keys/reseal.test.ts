import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { createRedisStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import { runCli } from '../../lib/cli/cli.js';
import type { Storage } from '../../lib/storage/index.js';
import { devKey, startGateway } from '../helpers/gateway.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';

const oldKey = `k1:${randomBytes(32).toString('base64')}`;
const newKey = `k2:${randomBytes(32).toString('base64')}`;
const providers = [
  {
    name: 'fake-api',
    display_name: 'Fake',
    logo_url: 'https://example.com/l.svg',
    categories: ['test'],
    auth_mode: 'API_KEY',
    docs: 'https://example.com',
    proxy: { base_url: 'http://127.0.0.1:9' },
  },
];

/** Stores a connection, an integration secret and a webhook signing key under the old key; answers what the API showed. */
async function seed(t: Test, storage: Storage) {
  const gw = await startGateway(t, { storage, encryptionKeys: oldKey, providers });
  t.equal((await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } })).status, 201);
  for (let i = 0; i < 30; i++) {
    const res = await gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'fake',
        connection_id: `c${i}`,
        credentials: { type: 'API_KEY', apiKey: `sk_secret_${i}` },
      },
    });
    t.equal(res.status, 201);
  }
  const signing = (await gw.call('POST', '/environment/webhook-signing-key')).json.data.webhook_signing_key;
  await gw.gateway.close();
  return { signing };
}

/** With only the new key configured: every value the old key sealed still opens. */
async function readsEverything(t: Test, storage: Storage, signing: string) {
  const gw = await startGateway(t, { storage, encryptionKeys: newKey, providers });
  for (const i of [0, 17, 29]) {
    const res = await gw.call('GET', `/connections/c${i}?provider_config_key=fake`);
    t.equal(res.status, 200, `connection c${i} opens without the old key`);
    t.equal(res.json?.data?.credentials?.apiKey, `sk_secret_${i}`);
  }
  const env = await gw.call('GET', '/environment');
  t.equal(env.status, 200, 'the webhook signing key opens without the old key');
  t.equal(String(env.json?.data?.webhook_signing_key).slice(-4), signing.slice(-4));
  await gw.gateway.close();
}

const cli = async (args: string[], env: Record<string, string>) => {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    cwd: process.cwd(),
    env,
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

t.test('SQLite: portico keys reseal moves every sealed value to the new key; the old key can go', async (t) => {
  const file = `${t.testdir({})}/portico.db`;
  const storage = createSqliteStorage({ path: file });
  t.teardown(() => storage.close());
  const { signing } = await seed(t, storage);

  // Without the pass, the new key alone cannot open what the old one sealed.
  const early = await startGateway(t, { storage, encryptionKeys: newKey, providers });
  t.equal(
    (await early.call('GET', '/connections/c0?provider_config_key=fake')).status,
    500,
    'nothing opens before the re-seal',
  );
  await early.gateway.close();

  const env = { SERVICE_STORE_URL: `sqlite://${file}`, SERVICE_ENCRYPTION_KEY: `${newKey},${oldKey}` };
  const run = await cli(['keys', 'reseal'], env);
  t.equal(run.code, 0, run.err);
  t.match(run.err, /dev connections: 30 checked, 30 re-sealed/);
  t.match(
    run.err,
    /dev integrations: 0 checked, 0 re-sealed/,
    'an integration without a client secret has nothing sealed',
  );
  t.match(run.err, /dev webhook-settings: 1 checked, 1 re-sealed/);
  t.match(run.out, /older keys can be dropped/);
  const again = await cli(['keys', 'reseal', '--json'], env);
  t.equal(again.code, 0, 'a second run finds nothing left (resumable: what is current is only read)');
  t.ok(JSON.parse(again.out).steps.every((s: { resealed: number }) => s.resealed === 0));

  await readsEverything(t, storage, signing);
  t.equal(
    (await cli(['keys', 'reseal'], { ...env, SERVICE_ENCRYPTION_KEY: `k3:${randomBytes(32).toString('base64')}` }))
      .code,
    1,
    'values no configured key opens are reported, not dropped',
  );
});

t.test('Redis: a gateway started with the old key behind the new one re-seals in the background', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('reseal');
  t.teardown(() => removeRedisKeys(prefix));
  const storage = createRedisStorage({ url: redisUrl, prefix });
  t.teardown(() => storage.close());
  const { signing } = await seed(t, storage);

  const rotating = await startGateway(t, { storage, encryptionKeys: `${newKey},${oldKey}`, providers });
  t.equal(
    (await rotating.call('GET', '/connections/c3?provider_config_key=fake', { key: devKey })).json?.data?.credentials
      ?.apiKey,
    'sk_secret_3',
    'both keys open while rotating',
  );
  // The background pass: closing waits for it; then a pass finds nothing left.
  await rotating.gateway.close();
  const steps = await (
    await startGateway(t, { storage, encryptionKeys: `${newKey},${oldKey}`, providers })
  ).gateway.keys.reseal();
  t.same(
    steps.map((s) => s.resealed + s.unreadable),
    steps.map(() => 0),
    'nothing was left under the old key',
  );
  t.equal(steps.find((s) => s.place === 'connections' && s.environment === 'dev')?.checked, 30);

  await readsEverything(t, storage, signing);
});
