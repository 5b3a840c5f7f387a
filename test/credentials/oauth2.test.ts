import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import type { GatewayEvent } from '../../lib/events/index.js';
import { GatewayError } from '../../lib/errors.js';
import type { GatewayOptions } from '../../lib/gateway.js';
import { fakeTokenServer, harness, inMs, json, testProvider, type Responder } from './fixtures.js';

const client = { type: 'OAUTH2', client_id: 'client-1', client_secret: 'client-secret-1' };

/** A token server, a provider pointing at it, an integration `crm` and connection `c1`. */
async function setup(
  t: Test,
  credentials: Record<string, unknown>,
  respond: Responder,
  options: {
    provider?: (tokenServerUrl: string) => Record<string, unknown>;
    gateway?: Partial<GatewayOptions>;
    connection?: Record<string, unknown>;
    clientSecret?: string;
  } = {},
) {
  const tokens = await fakeTokenServer(t, respond);
  const provider = testProvider('test-oauth', 'OAUTH2', 'https://api.example.com', {
    authorization_url: 'https://example.com/authorize',
    token_url: `${tokens.url}/oauth/token`,
    ...options.provider?.(tokens.url),
  });
  const h = await harness(t, { providers: [provider], ...options.gateway });
  await h.create('/integrations', {
    unique_key: 'crm',
    provider: 'test-oauth',
    credentials: { ...client, client_secret: options.clientSecret ?? client.client_secret },
  });
  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'c1',
    ...options.connection,
    credentials: { type: 'OAUTH2', ...credentials },
  });
  return { ...h, tokens };
}

const issue =
  (access: string, extra: Record<string, unknown> = {}): Responder =>
  (_req, res) =>
    json(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 3600, ...extra });

t.test('a token that is not about to expire is sent as a bearer token without a token call', async (t) => {
  const h = await setup(
    t,
    { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(3_600_000) },
    issue('never'),
  );
  const material = await h.resolverWith().resolve(await h.target('crm', 'c1'));
  t.same(material, { headers: { Authorization: 'Bearer at-0' }, query: {} });
  t.equal(h.tokens.received.length, 0);
});

t.test('a token inside the buffer is refreshed, stored sealed before use, rotated refresh token kept', async (t) => {
  const path = join(t.testdir(), 'portico.db');
  const storage = createSqliteStorage({ path });
  t.teardown(() => storage.close());
  const h = await setup(
    t,
    { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(60_000) },
    issue('at-NEW-plaintext', { refresh_token: 'rt-NEW-plaintext' }),
    { gateway: { storage } },
  );
  const material = await h.resolverWith().resolve(await h.target('crm', 'c1'));
  t.equal(material.headers.Authorization, 'Bearer at-NEW-plaintext');
  t.equal(h.tokens.received.length, 1);
  t.equal(h.tokens.received[0]?.url, '/oauth/token');
  t.same(
    h.tokens.form(0),
    { grant_type: 'refresh_token', refresh_token: 'rt-0', client_id: 'client-1', client_secret: 'client-secret-1' },
    'client_secret_post by default',
  );

  const stored = await h.gw.call('GET', '/connections/c1?provider_config_key=crm');
  t.equal(stored.json.data.credentials.access_token, 'at-NEW-plaintext');
  t.equal(stored.json.data.credentials.refresh_token, 'rt-NEW-plaintext', 'the rotated refresh token is stored');
  t.ok(Date.parse(stored.json.data.credentials.expires_at) > Date.now() + 3_000_000, 'expires_at from expires_in');
  const bytes = [path, `${path}-wal`]
    .filter(existsSync)
    .map((p) => readFileSync(p).toString('latin1'))
    .join('');
  t.ok(bytes.length > 0);
  t.notOk(bytes.includes('at-NEW-plaintext'), 'no plaintext access token in the SQLite file');
  t.notOk(bytes.includes('rt-NEW-plaintext'), 'no plaintext refresh token in the SQLite file');

  const again = await h.resolverWith().resolve(await h.target('crm', 'c1'));
  t.equal(again.headers.Authorization, 'Bearer at-NEW-plaintext', 'the stored token is used from then on');
  t.equal(h.tokens.received.length, 1);
});

t.test('a new token that cannot be stored is not used', async (t) => {
  const h = await setup(
    t,
    { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(-1000) },
    issue('at-unstored'),
  );
  const connections = h.gw.gateway.connections;
  const resolver = h.resolverWith({
    connections: {
      ...connections,
      updateCredentials: async () => {
        throw new Error('disk full');
      },
    },
  });
  await t.rejects(resolver.resolve(await h.target('crm', 'c1')), /disk full/);
  t.equal(h.tokens.received.length, 1);
});

t.test('200 concurrent requests on an expired token share one refresh', async (t) => {
  const h = await setup(
    t,
    { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(-60_000) },
    async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      json(res, 200, { access_token: 'at-shared', expires_in: 3600 });
    },
  );
  const resolver = h.resolverWith();
  const target = await h.target('crm', 'c1');
  const all = await Promise.all(Array.from({ length: 200 }, () => resolver.resolve(target)));
  t.equal(h.tokens.received.length, 1, 'exactly one call to the token endpoint');
  t.ok(
    all.every((m) => m.headers.Authorization === 'Bearer at-shared'),
    'every request got the new token',
  );
});

t.test('basic client authentication, token_params and connection_config in the token URL', async (t) => {
  const h = await setup(t, { access_token: 'at-0', refresh_token: 'rt/0 +', expires_at: inMs(-1) }, issue('at-1'), {
    provider: (url) => ({
      token_url: `${url}/\${connection_config.tenant}/token`,
      connection_configuration: ['tenant'],
      token_params: { audience: 'api-${connection_config.tenant}' },
      token_request_auth: 'basic',
    }),
    connection: { connection_config: { tenant: 'acme' } },
    clientSecret: 'sec ret:1',
  });
  const material = await h.resolverWith().resolve(await h.target('crm', 'c1'));
  t.equal(material.headers.Authorization, 'Bearer at-1');
  const req = h.tokens.received[0];
  t.equal(req?.url, '/acme/token', 'connection_config filled into the token URL');
  t.equal(
    req?.headers.authorization,
    `Basic ${Buffer.from('client-1:sec+ret%3A1').toString('base64')}`,
    'form-encoded id and secret (RFC 6749 2.3.1)',
  );
  t.same(
    h.tokens.form(0),
    { audience: 'api-acme', grant_type: 'refresh_token', refresh_token: 'rt/0 +' },
    'no secret in the body',
  );

  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'evil',
    connection_config: { tenant: 'x/../../evil?' },
    credentials: { type: 'OAUTH2', access_token: 'a', refresh_token: 'r', expires_at: inMs(-1) },
  });
  const refused = await h
    .resolverWith()
    .resolve(await h.target('crm', 'evil'))
    .catch((e: unknown) => e);
  t.ok(
    GatewayError.is(refused) && refused.code === 'invalid_connection_config',
    'a config value cannot reshape the token URL',
  );
  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'bare',
    credentials: { type: 'OAUTH2', access_token: 'a', refresh_token: 'r', expires_at: inMs(-1) },
  });
  const missing = await h
    .resolverWith()
    .resolve(await h.target('crm', 'bare'))
    .catch((e: unknown) => e);
  t.ok(
    GatewayError.is(missing) && missing.code === 'missing_connection_config' && missing.status === 400,
    'a missing config value is named',
  );
  t.equal(h.tokens.received.length, 1, 'and nothing was sent for either');
});

t.test('invalid_grant marks the connection, answers connection_refresh_failed and keeps the connection', async (t) => {
  const h = await setup(t, { access_token: 'at-0', refresh_token: 'rt-revoked', expires_at: inMs(-1) }, (_req, res) =>
    json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }),
  );
  const events: GatewayEvent[] = [];
  h.gw.gateway.events.subscribe((e) => {
    events.push(e);
  });
  const resolver = h.resolverWith();
  const error = await resolver.resolve(await h.target('crm', 'c1')).catch((e: unknown) => e);
  t.ok(GatewayError.is(error));
  t.equal((error as GatewayError).code, 'connection_refresh_failed');
  t.equal((error as GatewayError).status, 424);
  t.match((error as GatewayError).message, /invalid_grant: Token has been expired or revoked/);
  t.equal((error as GatewayError).details?.provider_error, 'invalid_grant');

  const stored = await h.gw.call('GET', '/connections/c1?provider_config_key=crm');
  t.equal(stored.status, 200, 'the connection is not deleted');
  t.equal(stored.json.data.errors[0].code, 'refresh_refused');
  t.equal(stored.json.data.credentials.refresh_token, 'rt-revoked');
  t.same(
    events.map((e) => e.type),
    ['connection.auth_failed'],
  );

  const again = await resolver.resolve(await h.target('crm', 'c1')).catch((e: unknown) => e);
  t.equal((again as GatewayError).code, 'connection_refresh_failed', 'the next call is refused too');
  t.equal(h.tokens.received.length, 1, '... from memory, without asking the provider again');
  t.equal(events.length, 1, 'and without a second event');

  h.tokens.set(issue('at-recovered'));
  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'c1',
    credentials: { type: 'OAUTH2', access_token: 'at-x', refresh_token: 'rt-new', expires_at: inMs(-1) },
  });
  const recovered = await resolver.resolve(await h.target('crm', 'c1'));
  t.equal(recovered.headers.Authorization, 'Bearer at-recovered', 'new credentials are tried at once');
});

t.test('an unavailable token endpoint is retryable and does not mark the connection', async (t) => {
  const h = await setup(t, { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(-1) }, (_req, res) =>
    json(res, 503, { error: 'temporarily_unavailable' }),
  );
  const resolver = h.resolverWith();
  const error = await resolver.resolve(await h.target('crm', 'c1')).catch((e: unknown) => e);
  t.equal((error as GatewayError).code, 'connection_refresh_unavailable');
  t.equal((error as GatewayError).status, 503);
  t.same((await h.gw.call('GET', '/connections/c1?provider_config_key=crm')).json.data.errors, [], 'not marked');
  await resolver.resolve(await h.target('crm', 'c1')).catch(() => undefined);
  t.equal(h.tokens.received.length, 2, 'the next request tries again');

  // Inside the buffer but not expired: the old token still works, so it is sent.
  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'c1',
    credentials: { type: 'OAUTH2', access_token: 'at-still-valid', refresh_token: 'rt-0', expires_at: inMs(30_000) },
  });
  const material = await resolver.resolve(await h.target('crm', 'c1'));
  t.equal(material.headers.Authorization, 'Bearer at-still-valid');
  t.ok(
    h.lines.some((l) => l.includes('token endpoint unavailable')),
    'logged',
  );
  t.notOk(
    h.lines.some((l) => l.includes('at-still-valid') || l.includes('rt-0') || l.includes('client-secret-1')),
    'no credential in any log line',
  );
});

t.test('a token endpoint that hangs or redirects is unavailable, and the redirect is not followed', async (t) => {
  const h = await setup(t, { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(-1) }, () => {
    /* never answers */
  });
  const hung = await h
    .resolverWith({ tokenTimeoutMs: 200 })
    .resolve(await h.target('crm', 'c1'))
    .catch((e: unknown) => e);
  t.equal((hung as GatewayError).code, 'connection_refresh_unavailable');
  t.match((hung as GatewayError).message, /no answer within 200 ms/);

  const elsewhere = await fakeTokenServer(t, issue('stolen'));
  h.tokens.set((_req, res) => {
    res.statusCode = 307;
    res.setHeader('location', `${elsewhere.url}/steal`);
    res.end();
  });
  const redirected = await h
    .resolverWith()
    .resolve(await h.target('crm', 'c1'))
    .catch((e: unknown) => e);
  t.equal((redirected as GatewayError).code, 'connection_refresh_unavailable');
  t.equal(elsewhere.received.length, 0, 'the client secret never reached the other host');
});

t.test('forceRefresh renews a refused token once, and not a token someone already renewed', async (t) => {
  let n = 0;
  const h = await setup(t, { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(3_600_000) }, (_req, res) =>
    json(res, 200, { access_token: `at-${++n}`, expires_in: 3600 }),
  );
  const resolver = h.resolverWith();
  const stale = await h.target('crm', 'c1');
  t.equal((await resolver.resolve(stale)).headers.Authorization, 'Bearer at-0');

  const target = await h.target('crm', 'c1');
  t.equal(
    (await resolver.resolve(target, { forceRefresh: true })).headers.Authorization,
    'Bearer at-1',
    'the provider refused at-0: renewed',
  );
  t.equal(h.tokens.received.length, 1);
  t.equal(
    (await resolver.resolve(target, { forceRefresh: true })).headers.Authorization,
    'Bearer at-2',
    'at-1 refused too: renewed again',
  );
  t.equal(h.tokens.received.length, 2);

  // A request that started with at-0 and got its 401 late: the store already holds a newer token.
  t.equal((await resolver.resolve(stale, { forceRefresh: true })).headers.Authorization, 'Bearer at-2');
  t.equal(h.tokens.received.length, 2, 'no extra refresh');
});

t.test('without a refresh token: sent while valid, refused once expired', async (t) => {
  const h = await setup(t, { access_token: 'at-only', expires_at: inMs(30_000) }, issue('never'));
  const resolver = h.resolverWith();
  t.equal((await resolver.resolve(await h.target('crm', 'c1'))).headers.Authorization, 'Bearer at-only');
  t.equal(
    (await resolver.resolve(await h.target('crm', 'c1'), { forceRefresh: true })).headers.Authorization,
    'Bearer at-only',
    'nothing to renew on force',
  );
  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'c1',
    credentials: { type: 'OAUTH2', access_token: 'at-only', expires_at: inMs(-1) },
  });
  const error = await resolver.resolve(await h.target('crm', 'c1')).catch((e: unknown) => e);
  t.equal((error as GatewayError).code, 'connection_refresh_failed');
  t.match((error as GatewayError).message, /no refresh token/);
  t.equal(h.tokens.received.length, 0);
});

t.test('an integration without its OAuth client cannot renew tokens', async (t) => {
  const h = await setup(t, { access_token: 'at-0', refresh_token: 'rt-0', expires_at: inMs(-1) }, issue('never'));
  const res = await h.gw.call('PATCH', '/integrations/crm', { body: { credentials: null } });
  t.equal(res.status, 200);
  const error = await h
    .resolverWith()
    .resolve(await h.target('crm', 'c1'))
    .catch((e: unknown) => e);
  t.equal((error as GatewayError).code, 'integration_credentials_missing');
  t.match((error as GatewayError).message, /PATCH \/integrations\/crm/);
  t.equal(h.tokens.received.length, 0);
});

t.test('a provider that wants the token in its own header gets it there (${accessToken})', async (t) => {
  const h = await setup(
    t,
    { access_token: 'shpat_1', refresh_token: 'r', expires_at: inMs(3_600_000) },
    issue('never'),
    {
      provider: () => ({
        proxy: { credentials: [{ in: 'header', name: 'X-Shopify-Access-Token', value: '${accessToken}' }] },
      }),
    },
  );
  t.same(await h.resolverWith().resolve(await h.target('crm', 'c1')), {
    headers: { 'X-Shopify-Access-Token': 'shpat_1' },
    query: {},
  });
});
