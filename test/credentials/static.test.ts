import t from 'tap';
import type { AuthMaterial } from '../../lib/credentials/index.js';
import { GatewayError } from '../../lib/errors.js';
import { fakeProvider } from '../helpers/http.js';
import { harness, testProvider } from './fixtures.js';

/** Sends the material to a real server the way the proxy would, and returns what arrived. */
async function sendTo(url: string, material: AuthMaterial) {
  const target = new URL('/v1/things', url);
  for (const [name, value] of Object.entries(material.query)) target.searchParams.set(name, value);
  await fetch(target, { headers: material.headers });
}

t.test('API_KEY and BASIC go where the catalog entry says', async (t) => {
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const h = await harness(t, {
    providers: [
      testProvider('key-default', 'API_KEY', api.url),
      testProvider('key-header', 'API_KEY', api.url, {
        proxy: {
          credentials: [
            { in: 'header', name: 'Authorization', value: 'Token token=${apiKey}' },
            { in: 'header', name: 'X-Api-Key', value: '${apiKey}' },
          ],
        },
      }),
      testProvider('key-query', 'API_KEY', api.url, { proxy: { credentials: [{ in: 'query', name: 'api_key' }] } }),
      testProvider('basic-default', 'BASIC', api.url),
      testProvider('basic-query', 'BASIC', api.url, {
        proxy: {
          credentials: [
            { in: 'query', name: 'key', value: '${username}' },
            { in: 'query', name: 'token', value: '${password}' },
          ],
        },
      }),
    ],
  });
  const cases: [string, Record<string, string>][] = [
    ['key-default', { type: 'API_KEY', apiKey: 'sk_1' }],
    ['key-header', { type: 'API_KEY', apiKey: 'sk_2' }],
    ['key-query', { type: 'API_KEY', apiKey: 'sk 3&x=y' }],
    ['basic-default', { type: 'BASIC', username: 'AC1', password: 'p:ss' }],
    ['basic-query', { type: 'BASIC', username: 'app-key', password: 'user-token' }],
  ];
  const resolver = h.resolverWith();
  for (const [provider, credentials] of cases) {
    await h.create('/integrations', { unique_key: provider, provider });
    await h.create('/connections', { provider_config_key: provider, connection_id: 'c', credentials });
    await sendTo(api.url, await resolver.resolve(await h.target(provider, 'c')));
  }
  const [keyDefault, keyHeader, keyQuery, basicDefault, basicQuery] = api.received;
  t.equal(keyDefault?.headers.authorization, 'Bearer sk_1', 'API_KEY default: Authorization: Bearer');
  t.equal(keyHeader?.headers.authorization, 'Token token=sk_2', 'header template');
  t.equal(keyHeader?.headers['x-api-key'], 'sk_2', 'several placements');
  t.equal(keyQuery?.url, '/v1/things?api_key=sk+3%26x%3Dy', 'query parameter, encoded: the key cannot add parameters');
  t.equal(keyQuery?.headers.authorization, undefined);
  t.equal(
    basicDefault?.headers.authorization,
    `Basic ${Buffer.from('AC1:p:ss').toString('base64')}`,
    'BASIC default: Authorization: Basic',
  );
  t.equal(basicQuery?.url, '/v1/things?key=app-key&token=user-token', 'username and password as query parameters');
});

t.test('the built-in catalog entries place keys as documented', async (t) => {
  const h = await harness(t);
  const resolver = h.resolverWith();
  await h.create('/integrations', { unique_key: 'klaviyo', provider: 'klaviyo' });
  await h.create('/connections', {
    provider_config_key: 'klaviyo',
    connection_id: 'c',
    credentials: { type: 'API_KEY', apiKey: 'pk_1' },
  });
  t.same(await resolver.resolve(await h.target('klaviyo', 'c')), {
    headers: { Authorization: 'Klaviyo-API-Key pk_1' },
    query: {},
  });
  await h.create('/integrations', { unique_key: 'trello', provider: 'trello' });
  await h.create('/connections', {
    provider_config_key: 'trello',
    connection_id: 'c',
    credentials: { type: 'BASIC', username: 'k', password: 't' },
  });
  t.same(await resolver.resolve(await h.target('trello', 'c')), { headers: {}, query: { key: 'k', token: 't' } });
});

t.test('a credential that would split a header is refused', async (t) => {
  const h = await harness(t, { providers: [testProvider('key-default', 'API_KEY', 'https://api.example.com')] });
  await h.create('/integrations', { unique_key: 'k', provider: 'key-default' });
  await h.create('/connections', {
    provider_config_key: 'k',
    connection_id: 'c',
    credentials: { type: 'API_KEY', apiKey: 'sk\r\nX-Admin: yes' },
  });
  const error = await h
    .resolverWith()
    .resolve(await h.target('k', 'c'))
    .catch((e: unknown) => e);
  t.ok(GatewayError.is(error));
  t.equal((error as GatewayError).code, 'invalid_credentials');
  t.notMatch((error as GatewayError).message, 'sk', 'the key is not echoed');
});

t.test("a placement template naming another mode's value is refused when the catalog loads", async (t) => {
  const { createCatalog } = await import('../../lib/providers/index.js');
  t.throws(
    () =>
      createCatalog([
        testProvider('bad', 'OAUTH2', 'https://api.example.com', {
          authorization_url: 'https://example.com/a',
          token_url: 'https://example.com/t',
          proxy: { credentials: [{ in: 'header', name: 'X-Key', value: '${apiKey}' }] },
        }),
      ]),
    /\$\{apiKey\} is not available in auth mode OAUTH2/,
  );
  t.throws(
    () =>
      createCatalog([
        testProvider('bad', 'API_KEY', 'https://api.example.com', {
          token_params: { a: '${connection_config.tenant}' },
        }),
      ]),
    /connection_config\.tenant is not in connection_configuration/,
  );
});
