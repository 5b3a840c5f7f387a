import t from 'tap';
import { checkProviderPath, checkProviderQuery } from '../../lib/proxy/index.js';
import { devKey } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { proxySetup, rawStatus } from './helpers.js';

const control = `Authorization: Bearer ${devKey}\r\nProvider-Config-Key: fake\r\nConnection-Id: c1\r\n`;

t.test('nothing in the path or query moves a request off the provider (SSRF corpus)', async (t) => {
  const evil = await fakeProvider();
  t.teardown(() => evil.close());
  const at = new URL(evil.url).host;
  const s = await proxySetup(t);
  const attempts: [string, string][] = [
    ['absolute URL', `/http://${at}/x`],
    ['absolute https URL, slashes encoded', `/https:%2F%2F${at}/x`],
    ['absolute URL, colon encoded', `/http%3A//${at}/x`],
    ['scheme with one slash', `/http:/${at}/x`],
    ['protocol-relative //host', `//${at}/x`],
    ['//host, encoded', `/%2F%2F${at}/x`],
    ['//host after a segment', `/v1//${at}/x`],
    ['raw ..', '/../admin'],
    ['raw .. deeper', '/v1/../../admin'],
    ['trailing ..', '/v1/..'],
    ['dot segment', '/./admin'],
    ['%2e%2e', '/%2e%2e/admin'],
    ['%2E%2E%2F', '/v1/%2E%2E%2Fadmin'],
    ['mixed .%2e', '/.%2e/admin'],
    ['..%2f', '/v1/..%2f..%2fadmin'],
    ['double-encoded ..', '/v1/%252e%252e/%252e%252e/admin'],
    ['triple-encoded ..', '/v1/%25252e%25252e/admin'],
    ['raw backslash', '/v1\\..\\..\\admin'],
    ['encoded backslash', '/v1/%5c..%5cadmin'],
    ['raw @ host', `/@${at}/x`],
    ['user-info', `/user:pass@${at}/`],
    ['encoded NUL', '/v1/%00/x'],
    ['encoded CR LF', '/v1/x%0d%0aHost:%20evil'],
    ['encoded DEL', '/v1/%7f'],
    ['overlong UTF-8 dots', '/v1/%c0%ae%c0%ae/admin'],
    ['malformed percent', '/v1/%zz'],
    ['query: encoded CR LF', '/v1/x?q=%0d%0aX-Injected:%201'],
    ['query: encoded NUL name', '/v1/x?%00=1'],
    ['query: raw backslash', '/v1/x?q=a\\b'],
  ];
  t.ok(attempts.length >= 25);
  for (const [label, path] of attempts) {
    const res = await s.proxy('GET', path);
    t.equal(res.status, 400, `${label}: 400`);
    t.equal(res.json?.error?.code, 'unsafe_proxy_target', `${label}: unsafe_proxy_target`);
  }
  // Request lines no HTTP client produces: raw control characters, a fragment, a space.
  for (const [label, line] of [
    ['raw control character', '/proxy/v1/\x01x'],
    ['raw fragment', '/proxy/v1/x#@evil'],
    ['raw tab', '/proxy/v1/\tx'],
  ]) {
    const res = await rawStatus(s.gw.url, `GET ${line} HTTP/1.1\r\nHost: x\r\n${control}Connection: close\r\n\r\n`);
    t.equal(res.status, 400, `${label}: 400`);
  }
  const viaApi = [`http://${at}/x`, `//${at}/x`, '/v1/../../admin', `/v1?x=%0a`];
  for (const path of viaApi) {
    await t.rejects(
      s.gw.gateway.proxy.request({ environment: 'dev', providerConfigKey: 'fake', connectionId: 'c1', path }),
      { code: 'unsafe_proxy_target' },
      `programmatic API: ${path}`,
    );
  }
  t.equal(s.provider.received.length, 0, 'the provider received none of them');
  t.equal(evil.received.length, 0, 'the other host received none of them');
});

t.test('paths and queries that only look odd are forwarded byte for byte', async (t) => {
  const s = await proxySetup(t);
  const fine = [
    '/v1.0/users/jane%40contoso.com',
    '/v1/files/100%25',
    '/v1/projects/p:batchGet',
    '/v1/items/',
    '/v1/caf%C3%A9/..data',
    '/v1/search?q=../x&redirect=https://example.com/a&email=a@b.c',
    '/v1/a%2Fb?filter=%7B%22a%22%3A1%7D',
  ];
  for (const path of fine) {
    const res = await s.proxy('GET', path);
    t.equal(res.status, 200, path);
    t.equal(s.provider.received.at(-1)?.url, `/api${path}`, `${path}: forwarded as sent`);
  }
});

t.test('connection_config values that fill the base URL or headers must be safe', async (t) => {
  const s = await proxySetup(t, {
    basePath: '/tenants/${connection_config.tenant}',
    provider: { connection_configuration: ['tenant', 'account'] },
    proxy: {
      headers: { 'X-Account-Id': '${connection_config.account}' },
      query: { tenant_hint: '${connection_config.tenant}' },
    },
    connection: { connection_config: { tenant: 'acme-01', account: '12345' } },
  });
  const ok = await s.proxy('GET', '/v1/x?a=1');
  t.equal(ok.status, 200);
  t.equal(
    s.provider.received[0]?.url,
    '/tenants/acme-01/v1/x?a=1&tenant_hint=acme-01',
    'the tenant fills the base path and the static query',
  );
  t.equal(s.provider.received[0]?.headers['x-account-id'], '12345', 'the account fills the static header');

  const bad = [
    '..',
    '.',
    '../admin',
    'x/../../admin',
    `a@127.0.0.1:1`,
    '%2e%2e',
    'a?b=1',
    'a#b',
    'a\\b',
    'a\r\nX-Evil: 1',
    'a b',
    '.hidden',
    'trailing.',
  ];
  for (const tenant of bad) {
    await s.gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'fake',
        connection_id: 'c1',
        credentials: { type: 'API_KEY', apiKey: 'k' },
        connection_config: { tenant, account: '1' },
      },
    });
    const res = await s.proxy('GET', '/v1/x');
    t.equal(res.status, 400, `tenant ${JSON.stringify(tenant)}: 400`);
    t.equal(
      res.json.error.code,
      'invalid_connection_config',
      `tenant ${JSON.stringify(tenant)}: invalid_connection_config`,
    );
  }
  await s.gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'fake',
      connection_id: 'c1',
      credentials: { type: 'API_KEY', apiKey: 'k' },
      connection_config: { tenant: 'ok', account: '1\r\nX-Evil: 1' },
    },
  });
  t.equal(
    (await s.proxy('GET', '/v1/x')).json.error.code,
    'invalid_connection_config',
    'a header value cannot smuggle a header',
  );
  await s.gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'fake',
      connection_id: 'c1',
      credentials: { type: 'API_KEY', apiKey: 'k' },
      connection_config: { account: '1' },
    },
  });
  const missing = await s.proxy('GET', '/v1/x');
  t.equal(missing.status, 400);
  t.equal(missing.json.error.code, 'missing_connection_config');
  t.match(missing.json.error.message, 'connection_config.tenant');
  t.equal(s.provider.received.length, 1, 'only the safe call reached the provider');
});

t.test("a subdomain template only ever adds labels in front of the provider's domain", async (t) => {
  const s = await proxySetup(t, {
    baseUrl: 'https://${connection_config.subdomain}.example.com/api',
    provider: { connection_configuration: ['subdomain'] },
    connection: { connection_config: { subdomain: 'evil.com#' } },
  });
  for (const subdomain of ['evil.com#', 'evil.com/', '127.0.0.1:80@x', 'a..b', 'x\\y', 'evil.com?', '[::1]']) {
    await s.gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'fake',
        connection_id: 'c1',
        credentials: { type: 'API_KEY', apiKey: 'k' },
        connection_config: { subdomain },
      },
    });
    const res = await s.proxy('GET', '/v1/x');
    t.equal(res.status, 400, `subdomain ${JSON.stringify(subdomain)}: 400`);
    t.equal(res.json.error.code, 'invalid_connection_config');
  }
  t.equal(s.provider.received.length, 0);
});

t.test('the path and query checks on their own', async (t) => {
  t.equal(checkProviderPath('/v1/a%2Fb'), '/v1/a%2Fb');
  t.throws(() => checkProviderPath('v1/x'), { code: 'unsafe_proxy_target' }, 'a path must start with /');
  t.throws(() => checkProviderPath('/a/b/c/%2e'), { code: 'unsafe_proxy_target' });
  t.equal(checkProviderQuery('a=1&b=%20'), 'a=1&b=%20');
  t.throws(() => checkProviderQuery('a=%1f'), { code: 'unsafe_proxy_target' });
});
