import Koa from 'koa';
import t, { type Test } from 'tap';
import type { CredentialResolver, CredentialTarget } from '../../lib/credentials/index.js';
import { GatewayError } from '../../lib/errors.js';
import { createEdge } from '../../lib/http/edge.js';
import { createLogger } from '../../lib/http/logger.js';
import { createProxy } from '../../lib/proxy/index.js';
import { startGateway } from '../helpers/gateway.js';
import { fakeProvider, listen } from '../helpers/http.js';
import { providerEntry, send } from './helpers.js';

/** A resolver that hands out token-1, and token-2 once forced; it records what it was asked. */
function countingResolver(options: { refreshFails?: boolean } = {}) {
  const calls: { target: CredentialTarget; force: boolean }[] = [];
  let version = 1;
  const resolver: CredentialResolver = {
    async resolve(target, opts = {}) {
      calls.push({ target, force: opts.forceRefresh === true });
      if (target.connection.credentials.type === 'API_KEY')
        return { headers: { Authorization: 'Bearer static-key' }, query: {} };
      if (opts.forceRefresh) {
        if (options.refreshFails)
          throw new GatewayError(
            'connection_refresh_failed',
            'The provider refused the refresh token (invalid_grant).',
          );
        version++;
      }
      return { headers: { Authorization: `Bearer token-${version}` }, query: {} };
    },
  };
  return { resolver, calls };
}

/**
 * A gateway's stores and catalog, with the proxy composed around a resolver of the test's own,
 * served by a small Koa app (environment `dev`, the gateway's error handler).
 */
async function setup(
  t: Test,
  respond: Parameters<typeof fakeProvider>[0],
  resolverOptions: { refreshFails?: boolean } = {},
) {
  const provider = await fakeProvider(respond);
  t.teardown(() => provider.close());
  const gw = await startGateway(t, {
    providers: [
      providerEntry(
        'oauth-api',
        `${provider.url}/api`,
        {},
        { auth_mode: 'OAUTH2', authorization_url: 'https://example.com/auth', token_url: 'https://example.com/token' },
      ),
      providerEntry('key-api', `${provider.url}/api`),
    ],
  });
  await gw.call('POST', '/integrations', { body: { unique_key: 'oauth', provider: 'oauth-api' } });
  await gw.call('POST', '/integrations', { body: { unique_key: 'key', provider: 'key-api' } });
  await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'oauth',
      connection_id: 'c1',
      credentials: { type: 'OAUTH2', access_token: 'stored' },
    },
  });
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'key', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'k' } },
  });
  const { resolver, calls } = countingResolver(resolverOptions);
  const logger = createLogger({ level: 'silent' });
  const { catalog, integrations, connections } = gw.gateway;
  const proxy = createProxy({
    catalog,
    integrations,
    connections,
    resolver,
    logger,
    options: { replayableBodyBytes: 1024 },
  });
  const app = new Koa();
  const routes = proxy.routes.routes();
  // The gateway's own edge (error shape, request id) around the proxy route, with the environment set.
  app.use(
    createEdge(logger, (ctx, next) => {
      ctx.state.environment = { name: 'dev', secretKey: 'unused' };
      return routes(ctx as Parameters<typeof routes>[0], next);
    }),
  );
  const server = await listen(app.callback());
  t.teardown(async () => {
    await server.close();
    await proxy.close();
  });
  const call = (method: string, path: string, key: string, body?: string, headers: Record<string, string> = {}) =>
    send(server.url, method, `/proxy${path}`, { 'provider-config-key': key, 'connection-id': 'c1', ...headers }, body);
  return { provider, proxy, calls, call };
}

/** Accepts only token-2: token-1 is "expired". */
const acceptsRefreshed = (
  req: { headers: Record<string, unknown>; body: Buffer },
  res: import('node:http').ServerResponse,
) => {
  if (req.headers.authorization !== 'Bearer token-2') {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' });
    return void res.end('{"message":"Bad credentials"}');
  }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: true, body: req.body.toString() }));
};

t.test('a provider 401 to a token: one forced refresh, one more try', async (t) => {
  const s = await setup(t, acceptsRefreshed);
  const res = await s.call('GET', '/v1/me', 'oauth');
  t.equal(res.status, 200);
  t.same(
    s.provider.received.map((r) => r.headers.authorization),
    ['Bearer token-1', 'Bearer token-2'],
  );
  t.same(
    s.calls.map((c) => c.force),
    [false, true],
  );
  t.equal(
    s.calls[0]?.target,
    s.calls[1]?.target,
    'the forced refresh names the same target, so the resolver knows which token was refused',
  );

  const posted = await s.call('POST', '/v1/items', 'oauth', '{"small":true}', { 'content-type': 'application/json' });
  t.equal(posted.status, 200);
  t.same(posted.json, { ok: true, body: '{"small":true}' }, 'a small body is sent again, unchanged');
});

t.test('bodies that cannot be sent again, and a second 401, pass through as is', async (t) => {
  const s = await setup(t, acceptsRefreshed);
  const large = await s.call('POST', '/v1/upload', 'oauth', 'x'.repeat(4096), { 'content-type': 'text/plain' });
  t.equal(large.status, 401, "a body above the replay limit is streamed once: the provider's 401 comes back");
  t.equal(large.body.toString(), '{"message":"Bad credentials"}');
  t.equal(large.headers['www-authenticate'], 'Bearer error="invalid_token"');
  t.equal(s.provider.received.length, 1);
  t.same(
    s.calls.map((c) => c.force),
    [false],
    'no refresh that could not be used',
  );
});

t.test('a token refused twice: the second 401 is the answer', async (t) => {
  const s = await setup(t, (_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"message":"revoked"}');
  });
  const res = await s.call('GET', '/v1/me', 'oauth');
  t.equal(res.status, 401);
  t.equal(res.body.toString(), '{"message":"revoked"}');
  t.equal(s.provider.received.length, 2, 'one retry, not a loop');
});

t.test('a refused refresh answers 424 with its code; API keys are never refreshed', async (t) => {
  const s = await setup(t, acceptsRefreshed, { refreshFails: true });
  const res = await s.call('GET', '/v1/me', 'oauth');
  t.equal(res.status, 424);
  t.equal(res.json.error.code, 'connection_refresh_failed');
  const key = await s.call('GET', '/v1/me', 'key');
  t.equal(key.status, 401, "an API key 401 is the provider's answer");
  t.same(
    s.calls.filter((c) => c.target.connection.credentials.type === 'API_KEY').map((c) => c.force),
    [false],
  );
});
