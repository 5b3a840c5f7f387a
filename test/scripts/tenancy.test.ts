import t from 'tap';
import { prodKey } from '../helpers/gateway.js';
import { bundleScript } from './fixtures.js';
import { json, scriptSetup } from './setup.js';

const prodApiKey = 'sk_prod_tenant_secret_0077';

t.test('a warm script process never serves two environments: dev code cannot watch a prod run', async (t) => {
  // One process at most: without pinning, prod's run would reuse the process dev's module is loaded in.
  const s = await scriptSetup(t, { respond: (_req, res) => json(res, {}), scripts: { workers: 1, heapMb: 96 } });
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

  // Dev's module listens to every message its process receives, from load on, and keeps them.
  const spy = bundleScript(`const seen = [];
process.on('message', (m) => seen.push(JSON.stringify(m)));
export default createAction({ input: z.object({}), output: z.object({ seen: z.string() }), exec: async () => ({ seen: seen.join('\\n') }) });`);
  const own = bundleScript(`export default createAction({ input: z.object({}), output: z.object({ ok: z.boolean() }),
  exec: async (s) => { const c = await s.getConnection(); return { ok: c.credentials.apiKey.length > 0 }; } });`);
  t.equal(
    (
      await s.gw.call('POST', '/scripts/deploy', {
        body: { scripts: [{ integration: 'fake', name: 'spy', bundle: spy }] },
      })
    ).status,
    200,
  );
  t.equal(
    (
      await s.gw.call('POST', '/scripts/deploy', {
        key: prodKey,
        body: { scripts: [{ integration: 'fake', name: 'own', bundle: own }] },
      })
    ).status,
    200,
  );

  t.equal((await s.action('spy', {})).status, 200);
  const prodRun = await s.gw.call('POST', '/action/trigger', {
    key: prodKey,
    headers: { 'connection-id': 'c1', 'provider-config-key': 'fake' },
    body: { action_name: 'own', input: {} },
  });
  t.same(prodRun.json, { ok: true }, "prod's run read its own connection");
  const watched = await s.action('spy', {});
  t.equal(watched.status, 200);
  t.notMatch(watched.json.seen, prodApiKey, "and nothing of prod's run");
});
