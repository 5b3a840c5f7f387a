import t, { type Test } from 'tap';
import { GatewayError } from '../../lib/errors.js';
import { createCatalog } from '../../lib/providers/index.js';
import { appKeyPair } from '../helpers/keys.js';
import { fakeCodeHost } from './fake-code-host.js';
import { harness } from './fixtures.js';

const appId = '424242';

/** The built-in code-hosting app entry, pointed at a local fake. */
async function setup(t: Test, options: { privateKey?: string; installationId?: string; now?: () => number } = {}) {
  const keys = appKeyPair();
  const host = await fakeCodeHost(t, {
    appId,
    publicKey: keys.publicKey,
    installations: ['1001'],
    ...(options.now ? { now: options.now } : {}),
  });
  const builtIn = createCatalog().get('github-app');
  const h = await harness(t, { providers: [{ ...builtIn, proxy: { ...builtIn?.proxy, base_url: host.url } }] });
  await h.create('/integrations', {
    unique_key: 'gh-app',
    provider: 'github-app',
    credentials: {
      type: 'APP',
      app_id: appId,
      app_link: 'https://github.com/apps/portico-test',
      private_key: options.privateKey ?? keys.privateKey,
    },
  });
  await h.create('/connections', {
    provider_config_key: 'gh-app',
    connection_id: 'org-1',
    credentials: { type: 'APP', installation_id: options.installationId ?? '1001' },
  });
  return { ...h, host };
}

const callApi = async (url: string, headers: Record<string, string>) =>
  (await fetch(`${url}/installation/repositories`, { headers })).status;

t.test('an installation token is minted with a signed app JWT and used instead of it', async (t) => {
  const h = await setup(t);
  const before = Math.floor(Date.now() / 1000);
  const material = await h.resolverWith().resolve(await h.target('gh-app', 'org-1'));
  t.same(material, { headers: { Authorization: 'Bearer ghs_installation_1' }, query: {} });
  t.equal(await callApi(h.host.url, material.headers), 200, 'the API accepts the installation token');

  const mint = h.host.received[0];
  t.equal(mint?.method, 'POST');
  t.equal(mint?.url, '/app/installations/1001/access_tokens');
  t.equal(mint?.headers.accept, 'application/vnd.github+json');
  const claims = h.host.claims[0];
  t.equal(claims?.iss, appId, 'iss is the app id');
  t.ok(claims && Math.abs(claims.iat - (before - 60)) <= 2, 'iat 60 s in the past');
  t.ok(claims && claims.exp - claims.iat <= 600 && claims.exp > before, 'lifetime under 10 minutes');
  const jwt = (mint?.headers.authorization ?? '').replace(/^Bearer /, '');
  t.equal(await callApi(h.host.url, { authorization: `Bearer ${jwt}` }), 401, 'the API refuses the app JWT');
  t.notMatch(material.headers.Authorization, jwt, 'calls never carry the app JWT');
});

t.test('the token is cached sealed on the connection and re-minted a few minutes before it expires', async (t) => {
  let clock = Date.now();
  const h = await setup(t, { now: () => clock });
  const resolver = h.resolverWith({ now: () => clock });
  await resolver.resolve(await h.target('gh-app', 'org-1'));
  const stored = await h.gw.call('GET', '/connections/org-1?provider_config_key=gh-app');
  t.equal(stored.json.data.credentials.access_token, 'ghs_installation_1');
  t.equal(stored.json.data.credentials.installation_id, '1001');
  const expiresAt = Date.parse(stored.json.data.credentials.expires_at);
  t.ok(Math.abs(expiresAt - (clock + 3600_000)) < 5_000, 'expires_at from the provider');

  const restarted = h.resolverWith({ now: () => clock });
  t.equal(
    (await restarted.resolve(await h.target('gh-app', 'org-1'))).headers.Authorization,
    'Bearer ghs_installation_1',
    'another resolver uses the stored token',
  );
  clock = expiresAt - 6 * 60_000;
  t.equal(
    (await resolver.resolve(await h.target('gh-app', 'org-1'))).headers.Authorization,
    'Bearer ghs_installation_1',
    '6 minutes before expiry: still cached',
  );
  t.equal(h.host.mintCalls(), 1);
  clock = expiresAt - 4 * 60_000;
  t.equal(
    (await resolver.resolve(await h.target('gh-app', 'org-1'))).headers.Authorization,
    'Bearer ghs_installation_2',
    '4 minutes before expiry: minted again',
  );
  t.equal(h.host.mintCalls(), 2);
});

t.test('concurrent requests mint once', async (t) => {
  const h = await setup(t);
  h.host.state.delayMs = 30;
  const resolver = h.resolverWith();
  const target = await h.target('gh-app', 'org-1');
  const all = await Promise.all(Array.from({ length: 100 }, () => resolver.resolve(target)));
  t.equal(h.host.mintCalls(), 1);
  t.ok(all.every((m) => m.headers.Authorization === 'Bearer ghs_installation_1'));
});

t.test('a token the provider refuses is replaced on forceRefresh', async (t) => {
  const h = await setup(t);
  const resolver = h.resolverWith();
  const target = await h.target('gh-app', 'org-1');
  await resolver.resolve(target);
  const renewed = await resolver.resolve(target, { forceRefresh: true });
  t.equal(renewed.headers.Authorization, 'Bearer ghs_installation_2');
  t.equal(await callApi(h.host.url, renewed.headers), 200);
});

t.test('an uninstalled app marks the connection and keeps it', async (t) => {
  const h = await setup(t, { installationId: '999' });
  const error = await h
    .resolverWith()
    .resolve(await h.target('gh-app', 'org-1'))
    .catch((e: unknown) => e);
  t.ok(GatewayError.is(error));
  t.equal((error as GatewayError).code, 'connection_refresh_failed');
  t.match((error as GatewayError).message, /installation 999 was not found/);
  const stored = await h.gw.call('GET', '/connections/org-1?provider_config_key=gh-app');
  t.equal(stored.status, 200);
  t.equal(stored.json.data.errors[0].code, 'installation_token_refused');
});

t.test("a private key that is not the app's is refused by the JWT check", async (t) => {
  const h = await setup(t, { privateKey: appKeyPair().privateKey });
  const error = await h
    .resolverWith()
    .resolve(await h.target('gh-app', 'org-1'))
    .catch((e: unknown) => e);
  t.equal((error as GatewayError).code, 'connection_refresh_failed');
  t.match((error as GatewayError).message, /app's JWT was refused: check the app ID \(424242\) and private key/);
  t.equal(h.host.claims.length, 0, 'no token was issued');
  t.notOk(
    h.lines.some((l) => l.includes('PRIVATE KEY') || l.includes('eyJ')),
    'neither key nor JWT in the logs',
  );
});
