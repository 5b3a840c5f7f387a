import t from 'tap';
import { fakeProvider } from '../helpers/http.js';
import { harness, testProvider } from './fixtures.js';

/*
 * `resolver.peek` is the proxy's hot path: it must answer exactly what `resolve` would when
 * nothing has to be obtained, and step aside (undefined) whenever something has to be.
 */

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

t.test('static credentials: the same material as resolve, placed once per connection', async (t) => {
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const h = await harness(t, {
    providers: [
      testProvider('keyed', 'API_KEY', api.url, { proxy: { credentials: [{ in: 'query', name: 'api_key' }] } }),
      testProvider('basic', 'BASIC', api.url),
    ],
  });
  await h.create('/integrations', { unique_key: 'keyed', provider: 'keyed' });
  await h.create('/connections', {
    provider_config_key: 'keyed',
    connection_id: 'c',
    credentials: { type: 'API_KEY', apiKey: 'k-1' },
  });
  await h.create('/integrations', { unique_key: 'basic', provider: 'basic' });
  await h.create('/connections', {
    provider_config_key: 'basic',
    connection_id: 'c',
    credentials: { type: 'BASIC', username: 'u', password: 'p' },
  });
  const resolver = h.resolverWith();
  for (const key of ['keyed', 'basic']) {
    const target = await h.target(key, 'c');
    const peeked = resolver.peek?.(target);
    t.same(peeked, await resolver.resolve(target), `${key}: peek answers what resolve answers`);
    t.equal(resolver.peek?.(target), peeked, `${key}: the second call reuses the placed material`);
  }
  await h.create('/connections', {
    provider_config_key: 'keyed',
    connection_id: 'c',
    credentials: { type: 'API_KEY', apiKey: 'k-2' },
  });
  t.same(
    resolver.peek?.(await h.target('keyed', 'c')),
    { headers: {}, query: { api_key: 'k-2' } },
    'new credentials are a new connection object: placed again',
  );
});

t.test('tokens: material while fresh, nothing once inside the renewal buffer or expired', async (t) => {
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const h = await harness(t, {
    providers: [
      testProvider('oauthy', 'OAUTH2', api.url, {
        authorization_url: `${api.url}/authorize`,
        token_url: `${api.url}/token`,
      }),
    ],
  });
  await h.create('/integrations', {
    unique_key: 'oauthy',
    provider: 'oauthy',
    credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret', scopes: [] },
  });
  const resolver = h.resolverWith();
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['fresh', { access_token: 'fresh-token', refresh_token: 'r', expires_at: inMinutes(30) }, true],
    ['no expiry', { access_token: 'forever-token' }, true],
    [
      'inside the 2-minute buffer',
      { access_token: 'closing-token', refresh_token: 'r', expires_at: inMinutes(1) },
      false,
    ],
    ['expired', { access_token: 'old-token', refresh_token: 'r', expires_at: inMinutes(-5) }, false],
  ];
  for (const [name, credentials, usable] of cases) {
    await h.create('/connections', {
      provider_config_key: 'oauthy',
      connection_id: name.replaceAll(' ', '-'),
      credentials: { type: 'OAUTH2', ...credentials },
    });
    const peeked = resolver.peek?.(await h.target('oauthy', name.replaceAll(' ', '-')));
    if (usable)
      t.same(
        peeked,
        { headers: { Authorization: `Bearer ${credentials.access_token as string}` }, query: {} },
        `${name}: the stored token`,
      );
    else t.equal(peeked, undefined, `${name}: left to resolve, which renews`);
  }
  // The API refuses such a date on import; a stored one that does not parse is treated as expired.
  const target = await h.target('oauthy', 'fresh');
  const odd = {
    ...target,
    connection: {
      ...target.connection,
      credentials: { type: 'OAUTH2' as const, access_token: 'odd-token', refresh_token: 'r', expires_at: 'soon' },
    },
  };
  t.equal(resolver.peek?.(odd), undefined, 'an expiry that does not parse: left to resolve');
  t.equal(api.received.length, 0, 'peek never calls the token endpoint');
});

t.test('credentials that do not fit the provider are left to resolve, which names the problem', async (t) => {
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const h = await harness(t, { providers: [testProvider('keyed', 'API_KEY', api.url)] });
  await h.create('/integrations', { unique_key: 'keyed', provider: 'keyed' });
  await h.create('/connections', {
    provider_config_key: 'keyed',
    connection_id: 'c',
    credentials: { type: 'API_KEY', apiKey: 'k-1' },
  });
  const resolver = h.resolverWith();
  const target = await h.target('keyed', 'c');
  const split = {
    ...target,
    connection: { ...target.connection, credentials: { type: 'API_KEY' as const, apiKey: 'a\r\nX-Injected: 1' } },
  };
  t.equal(resolver.peek?.(split), undefined, 'a key that would split a header: no material');
  await t.rejects(resolver.resolve(split), { code: 'invalid_credentials' }, 'resolve refuses it with its code');
  const mismatched = {
    ...target,
    connection: { ...target.connection, credentials: { type: 'BASIC' as const, username: 'u', password: 'p' } },
  };
  t.equal(resolver.peek?.(mismatched), undefined, 'BASIC credentials on an API_KEY provider: no material');
  await t.rejects(resolver.resolve(mismatched), { code: 'invalid_credentials' });
});
