import t from 'tap';
import { prodKey, startGateway } from '../helpers/gateway.js';
import { appKeyPair } from '../helpers/keys.js';

const oauth = {
  type: 'OAUTH2',
  client_id: 'client-1',
  client_secret: 'super-secret-value-9876',
  scopes: ['Sites.Read.All', 'offline_access'],
};

t.test('create, read, update and delete an OAuth integration', async (t) => {
  const gw = await startGateway(t);
  const created = await gw.call('POST', '/integrations', {
    body: { unique_key: 'ms', provider: 'microsoft', credentials: oauth },
  });
  t.equal(created.status, 201);
  t.equal(created.json.data.unique_key, 'ms');
  t.equal(created.json.data.auth_mode, 'OAUTH2');
  t.equal(created.json.data.credentials.client_secret, '********9876', 'secret masked, last four shown');
  t.same(created.json.data.credentials.scopes, ['Sites.Read.All', 'offline_access']);
  t.notMatch(created.text, 'super-secret-value', 'the secret never comes back');
  t.equal(created.json.data.callback_url, 'http://127.0.0.1:0/oauth/callback');

  const again = await gw.call('POST', '/integrations', {
    body: { unique_key: 'ms', provider: 'microsoft', credentials: oauth },
  });
  t.equal(again.status, 409);
  t.equal(again.json.error.code, 'integration_exists');

  const listed = await gw.call('GET', '/integrations');
  t.same(
    listed.json.data.map((i: { unique_key: string }) => i.unique_key),
    ['ms'],
  );

  const renewed = await gw.call('PATCH', '/integrations/ms', {
    body: { credentials: { ...oauth, client_secret: 'renewed-secret-abcd' } },
  });
  t.equal(renewed.status, 200);
  t.equal(
    renewed.json.data.credentials.client_secret,
    '********abcd',
    'an expired client secret is replaced by updating the integration',
  );

  const fetched = await gw.call('GET', '/integrations/ms');
  t.equal(fetched.json.data.credentials.client_secret, '********abcd');

  const deleted = await gw.call('DELETE', '/integrations/ms');
  t.equal(deleted.status, 200);
  t.equal((await gw.call('GET', '/integrations/ms')).status, 404);
  t.equal((await gw.call('DELETE', '/integrations/ms')).json.error.code, 'unknown_integration');
});

t.test('the code-hosting app set-up', async (t) => {
  const gw = await startGateway(t);
  const { privateKey } = appKeyPair();
  const app = {
    type: 'APP',
    app_id: '123456',
    app_link: 'https://github.com/apps/portico-test',
    private_key: privateKey,
    webhook_secret: 'a-random-string',
  };
  const created = await gw.call('POST', '/integrations', {
    body: { unique_key: 'gh-app', provider: 'github-app', credentials: app },
  });
  t.equal(created.status, 201);
  t.equal(created.json.data.credentials.private_key, '[set]', 'private key never returned');
  t.equal(created.json.data.setup_url, 'http://127.0.0.1:0/oauth/app-setup', 'setup URL shown to register');
  t.notMatch(created.text, 'PRIVATE KEY');

  const letters = await gw.call('POST', '/integrations', {
    body: { unique_key: 'x', provider: 'github-app', credentials: { ...app, app_id: '12ab' } },
  });
  t.equal(letters.status, 400);
  t.equal(letters.json.error.field, 'credentials.app_id');
  t.match(letters.json.error.message, /digits only/);

  const badPem = await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'x',
      provider: 'github-app',
      credentials: { ...app, private_key: '-----BEGIN RSA PRIVATE KEY-----\nnope\n-----END RSA PRIVATE KEY-----' },
    },
  });
  t.equal(badPem.status, 400);
  t.equal(badPem.json.error.field, 'credentials.private_key');

  const badLink = await gw.call('POST', '/integrations', {
    body: { unique_key: 'x', provider: 'github-app', credentials: { ...app, app_link: 'not a url' } },
  });
  t.equal(badLink.json.error.field, 'credentials.app_link');

  const wrongType = await gw.call('POST', '/integrations', {
    body: { unique_key: 'x', provider: 'github-app', credentials: oauth },
  });
  t.equal(wrongType.status, 400);
  t.equal(wrongType.json.error.code, 'invalid_credentials');
  t.equal((await gw.call('GET', '/integrations')).json.data.length, 1, 'bad input changed nothing');
});

t.test('.default with resource-specific scopes is refused before any provider is contacted', async (t) => {
  const gw = await startGateway(t);
  const res = await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'ms',
      provider: 'microsoft',
      credentials: { ...oauth, scopes: 'https://graph.microsoft.com/.default Files.Read.All' },
    },
  });
  t.equal(res.status, 400);
  t.match(res.json.error.message, /\.default scope can't be combined with resource-specific scopes/);
  const alone = await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'ms',
      provider: 'microsoft',
      credentials: { ...oauth, scopes: ['https://graph.microsoft.com/.default'] },
    },
  });
  t.equal(alone.status, 201, 'the default scope alone is fine');
});

t.test('bad input', async (t) => {
  const gw = await startGateway(t);
  const cases: [unknown, string, string?][] = [
    [{ provider: 'github' }, 'invalid_body', 'unique_key'],
    [{ unique_key: 'a b', provider: 'github' }, 'invalid_body', 'unique_key'],
    [{ unique_key: 'gh', provider: 'nope' }, 'unknown_provider', 'provider'],
    [{ unique_key: 'gh', provider: 'github', extra: 1 }, 'invalid_body'],
    [
      { unique_key: 'gh', provider: 'github', credentials: { type: 'OAUTH2', client_id: 'x' } },
      'invalid_body',
      'credentials.client_secret',
    ],
  ];
  for (const [body, code, field] of cases) {
    const res = await gw.call('POST', '/integrations', { body });
    t.equal(res.status, code === 'unknown_provider' ? 404 : 400, JSON.stringify(body));
    t.equal(res.json.error.code, code);
    if (field) t.equal(res.json.error.field, field);
  }
  const malformed = await gw.call('POST', '/integrations', { body: '{"unique_key":' });
  t.equal(malformed.status, 400);
  t.equal(malformed.json.error.code, 'invalid_json');
  const big = await gw.call('POST', '/integrations', {
    body: JSON.stringify({ unique_key: 'x', provider: 'github', display_name: 'x'.repeat(2 * 1024 * 1024) }),
  });
  t.equal(big.status, 413);
  t.equal(big.json.error.code, 'payload_too_large');
  const wrongType = await gw.call('POST', '/integrations', {
    body: 'a=b',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(wrongType.status, 415);
  t.equal((await gw.call('GET', '/integrations')).json.data.length, 0, 'nothing was created');
});

t.test("environments never see each other's integrations", async (t) => {
  const gw = await startGateway(t);
  await gw.call('POST', '/integrations', { body: { unique_key: 'gh', provider: 'github', credentials: oauth } });
  const fromProd = await gw.call('GET', '/integrations/gh', { key: prodKey });
  t.equal(fromProd.status, 404);
  t.same((await gw.call('GET', '/integrations', { key: prodKey })).json.data, []);
  const sameKeyInProd = await gw.call('POST', '/integrations', {
    key: prodKey,
    body: { unique_key: 'gh', provider: 'github' },
  });
  t.equal(sameKeyInProd.status, 201, 'the same unique key is free in another environment');
});
