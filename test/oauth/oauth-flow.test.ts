import t from 'tap';
import { basicClient, postClient } from './fixtures/authorization-server.js';
import { browse, cookieOf, resultOf } from './fixtures/browser.js';
import type { ConnectGateway } from './fixtures/gateway.js';
import { startOAuthPair } from './fixtures/oauth-setup.js';

const appOrigin = 'https://app.example.test';
const endUser = { id: 'eu-1', email: 'ada@example.com', display_name: 'Ada' };

async function integration(
  gw: ConnectGateway,
  key: string,
  provider: string,
  client: { client_id: string; client_secret: string },
) {
  const res = await gw.call('POST', '/integrations', {
    body: { unique_key: key, provider, credentials: { type: 'OAUTH2', ...client, scopes: ['api:read'] } },
  });
  if (res.status !== 201) throw new Error(`integration: ${res.text}`);
}

async function session(gw: ConnectGateway, body: Record<string, unknown>) {
  const res = await gw.call('POST', '/connect/sessions', { body: { end_user: endUser, ...body } });
  if (res.status !== 201) throw new Error(`session: ${res.text}`);
  return res.json.data as { token: string; connect_link: string; expires_at: string };
}

const failures = (gw: ConnectGateway) => gw.events.filter((e) => e.type === 'connection.auth_attempt_failed') as any[];

t.test('authorize → callback → connection (client_secret_post, PKCE S256), under a mount prefix', async (t) => {
  const { gw, as } = await startOAuthPair(t, { prefix: '/portico' });
  await integration(gw, 'oidc', 'local-oidc', postClient);
  const s = await session(gw, {
    organization: { id: 'org-1', display_name: 'Acme' },
    allowed_integrations: ['oidc'],
    origin: appOrigin,
  });
  t.equal(s.connect_link, `${gw.base}/oauth/connect?connect_session_token=${s.token}`);
  t.match(s.token, /^cst_[A-Za-z0-9_-]{43}$/, 'an unguessable token');

  const landed = await browse(s.connect_link);
  const toProvider = landed.hops.find((h) => h.location?.startsWith(as.url + '/auth'));
  t.ok(toProvider, 'the gateway redirected to the authorization URL');
  const authorize = new URL(toProvider?.location ?? 'http://x');
  t.equal(authorize.searchParams.get('client_id'), postClient.client_id);
  t.equal(
    authorize.searchParams.get('redirect_uri'),
    `${gw.base}/oauth/callback`,
    'redirect_uri is {base_url}/oauth/callback (spec 5.1.1)',
  );
  t.equal(authorize.searchParams.get('response_type'), 'code');
  t.equal(
    authorize.searchParams.get('scope'),
    'openid offline_access api:read',
    "catalog default scopes, then the integration's",
  );
  t.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  t.match(authorize.searchParams.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
  t.match(authorize.searchParams.get('state'), /^st_[A-Za-z0-9_-]{43}$/);
  t.equal(authorize.searchParams.get('prompt'), 'consent', 'authorization_params from the catalog');

  t.equal(landed.status, 200, landed.text);
  t.match(landed.headers.get('content-security-policy'), /default-src 'none'.*script-src 'sha256-/);
  t.equal(landed.headers.get('cache-control'), 'no-store');
  const { origin, message } = resultOf(landed.text);
  t.equal(origin, appOrigin, "the result is posted to the session's origin only");
  t.equal(message.ok, true);
  t.equal(message.provider_config_key, 'oidc');

  t.same(as.tokenRequests, [{ basicClientId: undefined }], 'client_secret_post: no basic header');
  const fetched = await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=oidc`);
  t.equal(fetched.status, 200);
  const c = fetched.json.data;
  t.equal(c.credentials.type, 'OAUTH2');
  t.ok(c.credentials.access_token && c.credentials.refresh_token, 'access and refresh tokens stored');
  t.ok(Date.parse(c.credentials.expires_at) > Date.now(), 'expiry computed from expires_in');
  t.same(
    c.end_user,
    { ...endUser, organization: { id: 'org-1', display_name: 'Acme' } },
    "the session's end user, organization included",
  );

  const created = gw.events.find((e) => e.type === 'connection.created') as any;
  t.match(
    created,
    { provider_config_key: 'oidc', connection_id: message.connection_id, operation: 'oauth', end_user: { id: 'eu-1' } },
    'the authorization event',
  );

  // The API accepts the stored token: it really came from the authorization server.
  const api = await fetch(as.apiUrl + '/me', { headers: { authorization: `Bearer ${c.credentials.access_token}` } });
  t.equal(api.status, 200);
  t.equal((await api.json()).account, 'alice');

  // The session was single-use.
  const again = await browse(s.connect_link);
  t.equal(again.status, 401);
  t.equal(resultOf(again.text).message.error.code, 'invalid_connect_session');
  t.match(resultOf(again.text).message.error.message, /Each connect link works once/);
  t.match(again.text, /<h1 id="portico-title">This link was already used<\/h1>/);
  t.equal(resultOf(again.text).origin, null, 'a replay answers a plain page: no message to any window');
  t.same(failures(gw), [], 'a replayed link is logged, not reported');
  t.equal((await gw.call('GET', '/connections')).json.data.length, 1);
});

t.test(
  "client_secret_basic works; a refused token exchange surfaces the provider's error and stores nothing",
  async (t) => {
    const { gw, as } = await startOAuthPair(t);
    await integration(gw, 'basic', 'local-oidc-basic', basicClient);
    await integration(gw, 'mismatch', 'local-oidc', { ...postClient, client_secret: 'a-wrong-secret-0000' });
    const ok = await browse((await session(gw, { allowed_integrations: ['basic'] })).connect_link);
    t.equal(resultOf(ok.text).message.ok, true, ok.text);
    t.equal(resultOf(ok.text).origin, null, 'no origin in the session or link: nothing is posted');
    t.same(as.tokenRequests, [{ basicClientId: basicClient.client_id }], 'the client authenticated with HTTP basic');

    const bad = await browse(
      (await session(gw, { allowed_integrations: ['mismatch'], origin: appOrigin })).connect_link,
    );
    t.equal(bad.status, 502);
    const { message } = resultOf(bad.text);
    t.equal(message.ok, false);
    t.equal(message.error.code, 'token_exchange_failed');
    t.notMatch(message.error.message, /invalid_client/, 'the end user reads no configuration detail');
    t.match(failures(gw).at(-1)?.message, /invalid_client/, "the provider's error is surfaced to the customer");
    const event = failures(gw).at(-1);
    t.match(event, {
      environment: 'dev',
      provider_config_key: 'mismatch',
      code: 'token_exchange_failed',
      operation: 'oauth',
      end_user: { id: 'eu-1' },
      provider_error: { error: 'invalid_client' },
    });
    t.same(
      (await gw.call('GET', '/connections?provider_config_key=mismatch')).json.data,
      [],
      'nothing half-made is stored',
    );
  },
);

t.test('denied consent is reported to the end user and the customer', async (t) => {
  const { gw, as } = await startOAuthPair(t);
  await integration(gw, 'oidc', 'local-oidc', postClient);
  as.control.decision = 'deny';
  const landed = await browse((await session(gw, { allowed_integrations: ['oidc'], origin: appOrigin })).connect_link);
  t.equal(landed.status, 403);
  const { message, origin } = resultOf(landed.text);
  t.equal(origin, appOrigin);
  t.match(message, { ok: false, provider_config_key: 'oidc', error: { code: 'authorization_denied' } });
  t.match(message.error.message, /was not granted, so nothing was connected/);
  t.notMatch(landed.text, /access_denied|declined/, "the provider's words go to the customer, not the page");
  t.match(failures(gw).at(-1), { code: 'authorization_denied', provider_error: { error: 'access_denied' } });
  t.same((await gw.call('GET', '/connections')).json.data, []);
});

t.test('a state is single-use: a replayed callback is refused, also under a race', async (t) => {
  const { gw } = await startOAuthPair(t);
  await integration(gw, 'oidc', 'local-oidc', postClient);
  const isCallback = (url: URL) => url.pathname === '/oauth/callback';

  const first = await browse((await session(gw, { allowed_integrations: ['oidc'] })).connect_link, {
    stopBefore: isCallback,
  });
  const callback = first.stoppedAt as string;
  const ok = await fetch(callback, { headers: cookieOf(first.jar) });
  t.equal(ok.status, 200);
  const replay = await fetch(callback, { headers: cookieOf(first.jar) });
  t.equal(replay.status, 409);
  t.equal(resultOf(await replay.text()).message.error.code, 'state_replayed');
  t.same(failures(gw), [], 'a replay is logged only, never a webhook');
  t.ok(
    gw.logs.some((l) => l.includes('replayed authorization state')),
    'counted in the logs',
  );

  const second = await browse((await session(gw, { allowed_integrations: ['oidc'] })).connect_link, {
    stopBefore: isCallback,
  });
  const raced = await Promise.all([
    fetch(second.stoppedAt as string, { headers: cookieOf(second.jar) }),
    fetch(second.stoppedAt as string, { headers: cookieOf(second.jar) }),
  ]);
  t.same(raced.map((r) => r.status).sort(), [200, 409], 'exactly one of two simultaneous callbacks wins');
  await Promise.all(raced.map((r) => r.text()));
  t.equal((await gw.call('GET', '/connections')).json.data.length, 2);
});

t.test('an expired state is refused and reported', async (t) => {
  const { gw } = await startOAuthPair(t);
  await integration(gw, 'oidc', 'local-oidc', postClient);
  const stopped = await browse((await session(gw, { allowed_integrations: ['oidc'] })).connect_link, {
    stopBefore: (u) => u.pathname === '/oauth/callback',
  });
  const callback = new URL(stopped.stoppedAt as string);
  // Ten minutes pass: move the stored expiry into the past instead of waiting.
  const { createHash } = await import('node:crypto');
  const states = gw.storage.keyv<any>('oauth-states');
  const key = createHash('sha256')
    .update(callback.searchParams.get('state') as string)
    .digest('base64url');
  const entry = await states.get(key);
  t.ok(entry, 'the state is stored under its hash');
  await states.set(key, { ...entry, expires_at: Date.now() - 1 });
  const res = await fetch(callback, { headers: cookieOf(stopped.jar) });
  t.equal(res.status, 400);
  t.equal(resultOf(await res.text()).message.error.code, 'state_expired');
  t.match(failures(gw).at(-1), { code: 'state_expired', provider_config_key: 'oidc' });
  t.same((await gw.call('GET', '/connections')).json.data, []);
});

t.test('PKCE is enforced by the server: without it the provider refuses and the refusal is surfaced', async (t) => {
  const { gw } = await startOAuthPair(t);
  await integration(gw, 'nopkce', 'local-oidc-nopkce', postClient);
  const landed = await browse((await session(gw, { allowed_integrations: ['nopkce'] })).connect_link);
  const { message } = resultOf(landed.text);
  t.equal(message.error.code, 'authorization_failed');
  t.match(message.error.message, /PKCE/i);
  t.match(failures(gw).at(-1), { code: 'authorization_failed', provider_error: { error: 'invalid_request' } });
});

t.test(
  'wrong redirects: a provider redirect_uri refusal, a state at the wrong endpoint, an unknown state',
  async (t) => {
    const { gw } = await startOAuthPair(t);
    await integration(gw, 'oidc', 'local-oidc', postClient);
    const jar = new Map<string, string>();
    const stateOf = async () => {
      const first = await browse((await session(gw, { allowed_integrations: ['oidc'] })).connect_link, {
        jar,
        stopBefore: (u) => u.pathname === '/auth',
      });
      return new URL(first.stoppedAt as string).searchParams.get('state') as string;
    };
    const mismatch = await fetch(
      `${gw.base}/oauth/callback?error=redirect_uri_mismatch&error_description=${encodeURIComponent('The redirect_uri MUST match the registered callback URL for this application.')}&state=${await stateOf()}`,
      { headers: cookieOf(jar) },
    );
    t.equal(mismatch.status, 400);
    const m = resultOf(await mismatch.text()).message;
    t.equal(m.error.code, 'wrong_redirect');
    t.match(
      failures(gw).at(-1)?.message,
      `${gw.base}/oauth/callback`,
      'names the redirect URI to register, to the customer',
    );

    const atSetup = await fetch(
      `${gw.base}/oauth/app-setup?installation_id=1&setup_action=install&state=${await stateOf()}`,
      { headers: cookieOf(jar) },
    );
    t.equal(resultOf(await atSetup.text()).message.error.code, 'wrong_redirect');
    t.equal(failures(gw).at(-1)?.code, 'wrong_redirect');

    const unknown = await fetch(`${gw.base}/oauth/callback?code=abc&state=st_forged`);
    t.equal(unknown.status, 400);
    t.equal(resultOf(await unknown.text()).message.error.code, 'invalid_state');
    const none = await fetch(`${gw.base}/oauth/callback?code=abc`);
    t.equal(resultOf(await none.text()).message.error.code, 'invalid_state');
    t.same((await gw.call('GET', '/connections')).json.data, []);
  },
);
