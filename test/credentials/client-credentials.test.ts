import t from 'tap';
import { GatewayError } from '../../lib/errors.js';
import { fakeTokenServer, harness, json, testProvider } from './fixtures.js';

t.test('OAUTH2_CC: fetched once, cached until expiry, shared by concurrent requests', async (t) => {
  let n = 0;
  const tokens = await fakeTokenServer(t, async (_req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    json(res, 200, { access_token: `cc-${++n}`, token_type: 'bearer', expires_in: 3600 });
  });
  let clock = Date.now();
  const h = await harness(t, {
    providers: [
      testProvider('test-cc', 'OAUTH2_CC', 'https://api.example.com', {
        token_url: `${tokens.url}/token`,
        scope_separator: ',',
      }),
    ],
  });
  await h.create('/integrations', {
    unique_key: 'cc',
    provider: 'test-cc',
    credentials: { type: 'OAUTH2_CC', client_id: 'svc', client_secret: 'svc-secret', scopes: ['read', 'write'] },
  });
  await h.create('/connections', {
    provider_config_key: 'cc',
    connection_id: 'c1',
    credentials: { type: 'OAUTH2_CC' },
  });
  const resolver = h.resolverWith({ now: () => clock });

  const target = await h.target('cc', 'c1');
  const first = await Promise.all(Array.from({ length: 50 }, () => resolver.resolve(target)));
  t.ok(
    first.every((m) => m.headers.Authorization === 'Bearer cc-1'),
    'every request got the token',
  );
  t.equal(tokens.received.length, 1, 'one token call for 50 concurrent requests');
  t.same(tokens.form(0), {
    grant_type: 'client_credentials',
    scope: 'read,write',
    client_id: 'svc',
    client_secret: 'svc-secret',
  });

  const stored = await h.gw.call('GET', '/connections/c1?provider_config_key=cc');
  t.equal(stored.json.data.credentials.token, 'cc-1', 'cached (sealed) on the connection');
  t.equal((await resolver.resolve(await h.target('cc', 'c1'))).headers.Authorization, 'Bearer cc-1');
  t.equal(tokens.received.length, 1, 'served from the cache');

  clock += 3600_000;
  t.equal(
    (await resolver.resolve(await h.target('cc', 'c1'))).headers.Authorization,
    'Bearer cc-2',
    'fetched again at expiry',
  );
  t.equal(tokens.received.length, 2);
});

t.test('OAUTH2_CC: refused client credentials are a clear error', async (t) => {
  const tokens = await fakeTokenServer(t, (_req, res) =>
    json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' }),
  );
  const h = await harness(t, {
    providers: [testProvider('test-cc', 'OAUTH2_CC', 'https://api.example.com', { token_url: `${tokens.url}/token` })],
  });
  await h.create('/integrations', {
    unique_key: 'cc',
    provider: 'test-cc',
    credentials: { type: 'OAUTH2_CC', client_id: 'svc', client_secret: 'wrong' },
  });
  await h.create('/connections', {
    provider_config_key: 'cc',
    connection_id: 'c1',
    credentials: { type: 'OAUTH2_CC' },
  });
  const error = await h
    .resolverWith()
    .resolve(await h.target('cc', 'c1'))
    .catch((e: unknown) => e);
  t.ok(GatewayError.is(error));
  t.equal((error as GatewayError).code, 'connection_refresh_failed');
  t.match((error as GatewayError).message, /invalid_client: Client authentication failed/);
  t.match((error as GatewayError).message, /integration "cc"/);
  t.same(tokens.form(0).scope, undefined, 'no scope parameter without scopes');
  const stored = await h.gw.call('GET', '/connections/c1?provider_config_key=cc');
  t.equal(stored.json.data.errors[0].code, 'token_refused');
});
