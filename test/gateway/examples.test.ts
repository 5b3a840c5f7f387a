import t from 'tap';
import { startExpressExample } from '../../examples/express-mount.js';
import { startKoaExample } from '../../examples/koa-mount.js';
import { startStandaloneExample } from '../../examples/standalone.js';
import { dataDir } from '../helpers/data-dir.js';

t.test('the Koa example serves Portico under /portico and its own routes', async (t) => {
  const example = await startKoaExample(0, dataDir(t));
  t.teardown(() => example.stop());
  const res = await fetch(`${example.url}/portico/providers/slack`, {
    headers: { authorization: 'Bearer sk_example_koa_0123456789' },
  });
  t.equal(res.status, 200);
  t.equal((await res.json()).data.name, 'slack');
  t.same(await (await fetch(`${example.url}/`)).json(), { app: 'my koa app', portico: '/portico' });
});

t.test('the Express example serves Portico under /api/portico', async (t) => {
  const example = await startExpressExample(0, dataDir(t));
  t.teardown(() => example.stop());
  const res = await fetch(`${example.url}/api/portico/providers/slack`, {
    headers: { authorization: 'Bearer sk_example_express_0123456789' },
  });
  t.equal(res.status, 200);
  t.same(await (await fetch(`${example.url}/api/hello`)).json(), { app: 'my express app' });
});

t.test('the standalone example on the SQLite default keeps data across a restart', async (t) => {
  const dir = dataDir(t);
  const env = {
    PORT: '0',
    SERVICE_STORE_URL: `sqlite://${dir}/portico.db`,
    SERVICE_SECRET_KEY: 'sk_standalone_test_0123456789',
    LOG_LEVEL: 'silent',
  };
  const auth = { authorization: `Bearer ${env.SERVICE_SECRET_KEY}`, 'content-type': 'application/json' };
  const first = await startStandaloneExample(env);
  const created = await fetch(`${first.url}/integrations`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ unique_key: 'stripe', provider: 'stripe' }),
  });
  t.equal(created.status, 201);
  const imported = await fetch(`${first.url}/connections`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      provider_config_key: 'stripe',
      connection_id: 'c1',
      credentials: { type: 'API_KEY', apiKey: 'sk_live_persisted' },
    }),
  });
  t.equal(imported.status, 201);
  await first.stop();

  const second = await startStandaloneExample(env);
  t.teardown(() => second.stop());
  const res = await fetch(`${second.url}/connections/c1?provider_config_key=stripe`, { headers: auth });
  t.equal(res.status, 200, 'the connection survived the restart');
  t.equal(
    (await res.json()).data.credentials.apiKey,
    'sk_live_persisted',
    'and its sealed credentials open with the persisted dev key',
  );
});
