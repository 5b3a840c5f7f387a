import t from 'tap';
import { createCatalog } from '../../lib/providers/index.js';
import { devKey } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { appKeyPair } from '../helpers/keys.js';
import { fakeCodeHost } from './fake-code-host.js';
import { fakeTokenServer, harness, inMs, json, testProvider } from './fixtures.js';

/** Every auth mode, end to end: caller → /proxy → gateway → fake provider. */
const viaProxy = (pck: string, cid: string, path = '/v1/me') => ({
  headers: { 'provider-config-key': pck, 'connection-id': cid },
  path: `/proxy${path}`,
});

t.test('API_KEY and BASIC reach the provider where the catalog says, never the secret key', async (t) => {
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const h = await harness(t, {
    providers: [
      testProvider('key-api', 'API_KEY', api.url, { proxy: { credentials: [{ in: 'header', name: 'X-Api-Key' }] } }),
      testProvider('basic-api', 'BASIC', api.url),
      testProvider('query-api', 'BASIC', api.url, {
        proxy: {
          credentials: [
            { in: 'query', name: 'key', value: '${username}' },
            { in: 'query', name: 'token', value: '${password}' },
          ],
        },
      }),
    ],
  });
  for (const [key, credentials] of [
    ['key-api', { type: 'API_KEY', apiKey: 'sk_123' }],
    ['basic-api', { type: 'BASIC', username: 'user', password: 'pass' }],
    ['query-api', { type: 'BASIC', username: 'k1', password: 't1' }],
  ] as const) {
    await h.create('/integrations', { unique_key: key, provider: key });
    await h.create('/connections', { provider_config_key: key, connection_id: 'c', credentials });
    const { headers, path } = viaProxy(key, 'c', '/v1/me?x=1');
    const res = await h.gw.call('GET', path, { headers });
    t.equal(res.status, 200, key);
  }
  const [apiKey, basic, query] = api.received;
  t.equal(apiKey?.headers['x-api-key'], 'sk_123');
  t.equal(apiKey?.headers.authorization, undefined, 'the gateway secret key is not forwarded');
  t.equal(basic?.headers.authorization, `Basic ${Buffer.from('user:pass').toString('base64')}`);
  t.equal(query?.url, '/v1/me?x=1&key=k1&token=t1');
  t.notOk(
    api.received.some((r) => JSON.stringify(r.headers).includes(devKey)),
    'no request carried the secret key',
  );
});

t.test(
  'OAUTH2: an expired token is refreshed on the way; a provider 401 triggers one refresh and one retry',
  async (t) => {
    let n = 0;
    const tokens = await fakeTokenServer(t, (_req, res) =>
      json(res, 200, { access_token: `at-${++n}`, expires_in: 3600 }),
    );
    let accepted = 'at-1';
    const api = await fakeProvider((req, res) =>
      json(res, req.headers.authorization === `Bearer ${accepted}` ? 200 : 401, { token: req.headers.authorization }),
    );
    t.teardown(() => api.close());
    const h = await harness(t, {
      providers: [
        testProvider('crm', 'OAUTH2', api.url, {
          authorization_url: 'https://example.com/a',
          token_url: `${tokens.url}/token`,
        }),
      ],
    });
    await h.create('/integrations', {
      unique_key: 'crm',
      provider: 'crm',
      credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' },
    });
    await h.create('/connections', {
      provider_config_key: 'crm',
      connection_id: 'c',
      credentials: { type: 'OAUTH2', access_token: 'at-0', refresh_token: 'rt', expires_at: inMs(-1) },
    });

    const first = await h.gw.call('GET', viaProxy('crm', 'c').path, { headers: viaProxy('crm', 'c').headers });
    t.equal(first.status, 200);
    t.equal(api.received[0]?.headers.authorization, 'Bearer at-1', 'refreshed before the call');

    accepted = 'at-2'; // the provider revokes at-1
    const second = await h.gw.call('GET', viaProxy('crm', 'c').path, { headers: viaProxy('crm', 'c').headers });
    t.equal(second.status, 200, 'the retry with a new token succeeded');
    t.same(
      api.received.slice(1).map((r) => r.headers.authorization),
      ['Bearer at-1', 'Bearer at-2'],
    );
    t.equal(tokens.received.length, 2);
  },
);

t.test('OAUTH2: a refused refresh answers 424 connection_refresh_failed and keeps the connection', async (t) => {
  const tokens = await fakeTokenServer(t, (_req, res) => json(res, 400, { error: 'invalid_grant' }));
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const h = await harness(t, {
    providers: [
      testProvider('crm', 'OAUTH2', api.url, {
        authorization_url: 'https://example.com/a',
        token_url: `${tokens.url}/token`,
      }),
    ],
  });
  await h.create('/integrations', {
    unique_key: 'crm',
    provider: 'crm',
    credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' },
  });
  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'c',
    credentials: { type: 'OAUTH2', access_token: 'at-0', refresh_token: 'rt', expires_at: inMs(-1) },
  });
  const res = await h.gw.call('GET', viaProxy('crm', 'c').path, { headers: viaProxy('crm', 'c').headers });
  t.equal(res.status, 424);
  t.equal(res.json.error.code, 'connection_refresh_failed');
  t.equal(res.headers.get('portico-error'), 'connection_refresh_failed');
  t.equal(api.received.length, 0, 'the provider API was not called');
  const connection = await h.gw.call('GET', '/connections/c?provider_config_key=crm');
  t.equal(connection.status, 200);
  t.equal(connection.json.data.errors[0].code, 'refresh_refused');
});

t.test('OAUTH2_CC: the client-credentials token reaches the provider', async (t) => {
  const tokens = await fakeTokenServer(t, (_req, res) =>
    json(res, 200, { access_token: 'cc-token', expires_in: 3600 }),
  );
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const h = await harness(t, {
    providers: [testProvider('svc', 'OAUTH2_CC', api.url, { token_url: `${tokens.url}/token` })],
  });
  await h.create('/integrations', {
    unique_key: 'svc',
    provider: 'svc',
    credentials: { type: 'OAUTH2_CC', client_id: 'id', client_secret: 'secret' },
  });
  await h.create('/connections', {
    provider_config_key: 'svc',
    connection_id: 'c',
    credentials: { type: 'OAUTH2_CC' },
  });
  for (let i = 0; i < 3; i++)
    t.equal((await h.gw.call('GET', viaProxy('svc', 'c').path, { headers: viaProxy('svc', 'c').headers })).status, 200);
  t.same(
    api.received.map((r) => r.headers.authorization),
    ['Bearer cc-token', 'Bearer cc-token', 'Bearer cc-token'],
  );
  t.equal(tokens.received.length, 1, 'fetched once, then cached');
});

t.test('APP: calls go out as the installation (spec 5.1.4), with no version segment in the path', async (t) => {
  const keys = appKeyPair();
  const host = await fakeCodeHost(t, { appId: '99', publicKey: keys.publicKey, installations: ['5'] });
  const builtIn = createCatalog().get('github-app');
  const h = await harness(t, { providers: [{ ...builtIn, proxy: { ...builtIn?.proxy, base_url: host.url } }] });
  await h.create('/integrations', {
    unique_key: 'gh',
    provider: 'github-app',
    credentials: { type: 'APP', app_id: '99', app_link: 'https://github.com/apps/p', private_key: keys.privateKey },
  });
  await h.create('/connections', {
    provider_config_key: 'gh',
    connection_id: 'org',
    credentials: { type: 'APP', installation_id: '5' },
  });
  const { path, headers } = viaProxy('gh', 'org', '/installation/repositories');
  const res = await h.gw.call('GET', path, { headers });
  t.equal(res.status, 200, 'the fake API accepted the installation token');
  t.same(res.json, { total_count: 1, repositories: [{ name: 'portico' }] });
  const apiCall = host.received.find((r) => r.method === 'GET');
  t.equal(apiCall?.url, '/installation/repositories');
  t.equal(apiCall?.headers.authorization, 'Bearer ghs_installation_1');
  t.equal(apiCall?.headers['x-github-api-version'], '2022-11-28', 'catalog headers still apply');
  await h.gw.call('GET', path, { headers });
  t.equal(host.mintCalls(), 1, 'the token is reused');
});
