import t, { type Test } from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { providerEntry } from '../proxy/helpers.js';

const goodKey = 'sk_good_0123456789';

async function setup(t: Test) {
  const provider = await fakeProvider((req, res) => {
    res.statusCode = req.headers.authorization === `Bearer ${goodKey}` ? 200 : 401;
    res.end('{}');
  });
  t.teardown(() => provider.close());
  const gw = await startGateway(t, {
    providers: [
      providerEntry('checked-api', `${provider.url}/api`, { verification_endpoint: '/me' }),
      providerEntry('unchecked-api', `${provider.url}/api`),
    ],
  });
  for (const [key, p] of [
    ['checked', 'checked-api'],
    ['unchecked', 'unchecked-api'],
  ]) {
    t.equal((await gw.call('POST', '/integrations', { body: { unique_key: key, provider: p } })).status, 201);
  }
  const importKey = (integration: string, apiKey: string, extra: Record<string, unknown> = {}) =>
    gw.call('POST', '/connections', {
      body: {
        provider_config_key: integration,
        connection_id: 'c1',
        credentials: { type: 'API_KEY', apiKey },
        ...extra,
      },
    });
  return { gw, provider, importKey };
}

t.test('"verify": true checks an imported API key at the catalog\'s verification endpoint first', async (t) => {
  const s = await setup(t);
  const good = await s.importKey('checked', goodKey, { verify: true });
  t.equal(good.status, 201, good.text);
  t.match(
    s.provider.received,
    [{ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${goodKey}` } }],
    'the provider was asked, with the key placed as the proxy places it',
  );

  const bad = await s.importKey('checked', 'sk_wrong_0123456789', { verify: true });
  t.equal(bad.status, 400);
  t.match(bad.json.error, { code: 'invalid_credentials', message: /refused these credentials \(HTTP 401\)/ });
  const stored = await s.gw.call('GET', '/connections/c1?provider_config_key=checked');
  t.equal(stored.json.data.credentials.apiKey, goodKey, 'the refused key replaced nothing');
});

t.test('without "verify" nothing is checked; "verify" without an endpoint or for OAuth is a clear 400', async (t) => {
  const s = await setup(t);
  t.equal((await s.importKey('checked', 'sk_unchecked_0123456789')).status, 201, 'accepted as typed');
  t.equal(s.provider.received.length, 0, 'the provider was not called');
  const noEndpoint = await s.importKey('unchecked', goodKey, { verify: true });
  t.match(noEndpoint, {
    status: 400,
    json: {
      error: { code: 'invalid_request', field: 'verify', message: /unchecked-api has no verification endpoint/ },
    },
  });
  t.equal((await s.gw.call('GET', '/connections/c1?provider_config_key=unchecked')).status, 404, 'nothing stored');
  const notString = await s.importKey('checked', goodKey, { verify: 'yes' });
  t.equal(notString.status, 400);
});
