import t from 'tap';
import type { Test } from 'tap';
import { fakeProvider } from '../helpers/http.js';
import { browse as browseFresh, formStateOf, resultOf } from './fixtures/browser.js';
import { startConnectGateway, testProvider, type ConnectGateway } from './fixtures/gateway.js';

// One browser for the file: a flow is finished by the browser that started it (its cookie).
const jar = new Map<string, string>();
const browse: typeof browseFresh = (start, options = {}) => browseFresh(start, { jar, ...options });

type Fake = Awaited<ReturnType<typeof fakeProvider>>;

async function start(t: Test) {
  // The provider's API: /me answers 200 only for the right key or the right basic credentials.
  const api = await fakeProvider((req, res) => {
    const basicOk = req.headers.authorization === `Basic ${Buffer.from('ada:pa55').toString('base64')}`;
    const ok = req.headers['x-api-key'] === 'good-key' || (basicOk && req.url === '/accounts/acme/me');
    res.statusCode = ok ? 200 : 401;
    res.setHeader('content-type', 'application/json');
    res.end(ok ? '{"id":"me"}' : '{"message":"unauthorized"}');
  });
  t.teardown(() => api.close());
  const gw = await startConnectGateway(t, {
    providers: [
      testProvider('local-key', {
        auth_mode: 'API_KEY',
        proxy: {
          base_url: api.url,
          credentials: [{ in: 'header', name: 'X-Api-Key', value: '${apiKey}' }],
          verification_endpoint: '/me',
        },
      }),
      testProvider('local-basic', {
        auth_mode: 'BASIC',
        connection_configuration: ['account'],
        proxy: { base_url: `${api.url}/accounts/\${connection_config.account}`, verification_endpoint: '/me' },
      }),
      testProvider('local-sub', {
        auth_mode: 'OAUTH2',
        connection_configuration: ['subdomain'],
        authorization_url: 'https://${connection_config.subdomain}.example.com/oauth/authorize',
        token_url: 'https://${connection_config.subdomain}.example.com/oauth/token',
        proxy: { base_url: 'https://${connection_config.subdomain}.example.com/api' },
      }),
    ],
  });
  for (const body of [
    { unique_key: 'key', provider: 'local-key' },
    { unique_key: 'basic', provider: 'local-basic' },
    {
      unique_key: 'sub',
      provider: 'local-sub',
      credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: 'client-secret-123' },
    },
    {
      unique_key: 'okta',
      provider: 'okta',
      credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: 'client-secret-123' },
    },
  ]) {
    const res = await gw.call('POST', '/integrations', { body });
    if (res.status !== 201) throw new Error(res.text);
  }
  return { gw, api };
}

async function link(gw: ConnectGateway, key: string, extra: Record<string, unknown> = {}) {
  return (
    await gw.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'eu-3' }, allowed_integrations: [key], origin: 'https://app.example.test', ...extra },
    })
  ).json.data.connect_link as string;
}

const post = (gw: ConnectGateway, key: string, form: Record<string, string>) =>
  browse(`${gw.base}/oauth/connect/${key}`, { method: 'POST', form });
const failures = (gw: ConnectGateway) => gw.events.filter((e) => e.type === 'connection.auth_attempt_failed') as any[];

t.test('API key: the form, a refused key (retry allowed), a verified key stored', async (t) => {
  const { gw, api }: { gw: ConnectGateway; api: Fake } = await start(t);
  const page = await browse(await link(gw, 'key'));
  t.equal(page.status, 200);
  t.match(page.text, /<input id="f0" name="apiKey" type="password"/);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, `form-action ${new URL(gw.base).origin}`, 'the form may only post to the gateway');
  t.match(csp, /script-src 'sha256-[^' ]+';/, 'one script, allowed by its hash');
  t.notMatch(csp, 'unsafe-inline');
  t.equal(page.headers.get('x-frame-options'), 'DENY');
  const state = formStateOf(page.text);

  const refused = await post(gw, 'key', { state, apiKey: 'bad-key' });
  t.equal(refused.status, 400);
  t.match(refused.text, /role="alert"><strong>Not connected yet<\/strong>Test local-key did not accept these details/);
  t.notMatch(refused.text, /HTTP 401/, "the provider's answer goes to the logs and the webhook, not the page");
  t.match(failures(gw).at(-1)?.message, /HTTP 401/);
  t.equal(formStateOf(refused.text), state, 'the same form token may be used again');
  t.match(failures(gw).at(-1), { code: 'invalid_credentials', operation: 'connect', provider_config_key: 'key' });
  t.equal(
    api.received.at(-1)?.headers['x-api-key'],
    'bad-key',
    "verified at the catalog's verification endpoint, placed like the proxy places it",
  );

  const accepted = await post(gw, 'key', { state, apiKey: ' good-key ' });
  const { message, origin } = resultOf(accepted.text);
  t.equal(origin, 'https://app.example.test');
  t.equal(message.ok, true, accepted.text);
  const stored = await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=key`);
  t.same(stored.json.data.credentials, { type: 'API_KEY', apiKey: 'good-key' });
  t.match(
    gw.events.find((e) => e.type === 'connection.created'),
    { operation: 'connect', end_user: { id: 'eu-3' } },
  );

  const again = await post(gw, 'key', { state, apiKey: 'good-key' });
  t.equal(resultOf(again.text).message.error.code, 'state_replayed', 'a used form token is spent');
  t.equal((await gw.call('GET', '/connections')).json.data.length, 1);
});

t.test('basic credentials with a connection setting typed by the end user', async (t) => {
  const { gw, api } = await start(t);
  const page = await browse(await link(gw, 'basic'));
  t.match(page.text, /name="connection_config.account" type="text"/);
  t.match(page.text, /name="username" type="text"[^>]*>[^]*name="password" type="password"/);
  const state = formStateOf(page.text);
  const bad = await post(gw, 'basic', {
    state,
    'connection_config.account': '../admin',
    username: 'ada',
    password: 'pa55',
  });
  t.equal(bad.status, 400);
  t.match(bad.text, /One of the values is not valid/);
  t.match(
    bad.text,
    /name="connection_config.account" [^>]*aria-invalid="true" aria-describedby="form-error"/,
    'the field in error is marked for screen readers',
  );
  t.notMatch(bad.text, /name="username" [^>]*aria-invalid/);
  const ok = await post(gw, 'basic', { state, 'connection_config.account': 'acme', username: 'ada', password: 'pa55' });
  const { message } = resultOf(ok.text);
  t.equal(message.ok, true, ok.text);
  t.equal(api.received.at(-1)?.url, '/accounts/acme/me');
  const stored = (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=basic`)).json.data;
  t.same(stored.credentials, { type: 'BASIC', username: 'ada', password: 'pa55' });
  t.same(stored.connection_config, { account: 'acme' });
});

t.test('OAuth settings the consent URL needs: asked on a form, never a host the end user picks', async (t) => {
  const { gw } = await start(t);
  const page = await browse(await link(gw, 'sub'));
  t.match(page.text, /name="connection_config.subdomain"/);
  const next = await post(gw, 'sub', { state: formStateOf(page.text), 'connection_config.subdomain': 'acme' });
  t.equal(next.status, 200);
  t.match(
    next.text,
    /<meta http-equiv="refresh" content="0;url=https:\/\/acme\.example\.com\/oauth\/authorize\?/,
    "continues to the subdomain's consent page",
  );

  // From the link (the SDK's connectionConfig), a declared value is taken directly.
  const direct = await browse(`${await link(gw, 'sub')}&connection_config.subdomain=globex`, {
    stopBefore: (u) => !u.href.startsWith(gw.base),
  });
  t.match(direct.stoppedAt, /^https:\/\/globex\.example\.com\/oauth\/authorize\?/);

  // Okta's domain is the whole host of the token URL: only the customer may set it.
  const picked = await browse(`${await link(gw, 'okta')}&connection_config.domain=attacker.example`);
  t.match(resultOf(picked.text).message.error, {
    code: 'invalid_connection_config',
    message: /isn't available right now. Please contact the application/,
  });
  t.notMatch(picked.text, /only the application|connection_config\.domain/, 'no developer hint reaches the end user');
  t.match(failures(gw).at(-1), { code: 'invalid_connection_config', message: /only the application can set it/ });
  const missing = await browse(await link(gw, 'okta'));
  t.match(resultOf(missing.text).message.error, {
    code: 'missing_connection_config',
    message: /isn't available right now/,
  });
  t.notMatch(missing.text, /integrations_config_defaults|must set it/);
  t.match(failures(gw).at(-1), {
    code: 'missing_connection_config',
    message: /application must set it in the connect session/,
  });
  const bySession = await browse(
    await link(gw, 'okta', {
      integrations_config_defaults: { okta: { connection_config: { domain: 'acme.okta.com' } } },
    }),
    { stopBefore: (u) => !u.href.startsWith(gw.base) },
  );
  t.match(bySession.stoppedAt, /^https:\/\/acme\.okta\.com\/oauth2\/v1\/authorize\?/);
});

t.test('values reflected in pages are escaped', async (t) => {
  const { gw } = await start(t);
  const res = await browse(`${await link(gw, 'key')}&connection_config.%3Cscript%3Ealert(1)%3C%2Fscript%3E=x`);
  t.equal(res.status, 400);
  t.notMatch(res.text, 'alert(1)', "the request's value does not reach the page at all");
  // What the customer's backend names (app, end user) is escaped wherever it is shown.
  const named = await browse(
    await link(gw, 'key', {
      branding: { app_name: '<img src=x onerror=alert(1)>' },
      end_user: { id: 'eu-3', display_name: '"><script>alert(2)</script>' },
    }),
  );
  t.equal(named.status, 200);
  t.notMatch(named.text, /<img src=x|<script>alert/);
  t.match(named.text, '&#60;img src=x onerror=alert(1)&#62; will use these details');
  t.match(named.text, 'Connecting for &#34;&#62;&#60;script&#62;alert(2)&#60;/script&#62;');
});
