import { createHash } from 'node:crypto';
import t from 'tap';
import type { Test } from 'tap';
import { prodKey } from '../helpers/gateway.js';
import { browse as browseFresh, formStateOf, resultOf } from '../oauth/fixtures/browser.js';
import { startConnectGateway, testProvider, type ConnectGateway } from '../oauth/fixtures/gateway.js';

// One browser for the file: a flow is finished by the browser that started it (its cookie).
const jar = new Map<string, string>();
const browse: typeof browseFresh = (start, options = {}) => browseFresh(start, { jar, ...options });

const endUser = { id: 'eu-1', email: 'ada@example.com', display_name: 'Ada' };

async function start(t: Test) {
  const gw = await startConnectGateway(t, {
    providers: [testProvider('local-key', { auth_mode: 'API_KEY', proxy: { base_url: 'https://api.example.com' } })],
  });
  for (const body of [
    { unique_key: 'key', provider: 'local-key' },
    { unique_key: 'key2', provider: 'local-key', display_name: 'Second <key>' },
    {
      unique_key: 'gh',
      provider: 'github',
      credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: 'client-secret-123' },
    },
    { unique_key: 'gh-unset', provider: 'github' },
    { unique_key: 'auth0', provider: 'auth0' },
  ]) {
    const res = await gw.call('POST', '/integrations', { body });
    if (res.status !== 201) throw new Error(res.text);
  }
  await gw.call('POST', '/integrations', { key: prodKey, body: { unique_key: 'prod-only', provider: 'local-key' } });
  return gw;
}

const createSession = (gw: ConnectGateway, body: Record<string, unknown>) =>
  gw.call('POST', '/connect/sessions', { body: { end_user: endUser, ...body } });
const failures = (gw: ConnectGateway) => gw.events.filter((e) => e.type === 'connection.auth_attempt_failed') as any[];

t.test('POST /connect/sessions validates its input and needs the secret key', async (t) => {
  const gw = await start(t);
  t.equal((await gw.call('POST', '/connect/sessions', { key: null, body: { end_user: endUser } })).status, 401);
  const noUser = await gw.call('POST', '/connect/sessions', { body: {} });
  t.match(noUser, { status: 400, json: { error: { code: 'invalid_body', field: 'end_user' } } });
  const badOrigin = await createSession(gw, { origin: 'https://app.example.test/page' });
  t.match(badOrigin, { status: 400, json: { error: { field: 'origin' } } });
  const unknown = await createSession(gw, { allowed_integrations: ['nope'] });
  t.match(unknown, { status: 404, json: { error: { code: 'unknown_integration' } } });
  const reconnectTwo = await createSession(gw, { allowed_integrations: ['key', 'key2'], connection_id: 'c1' });
  t.match(reconnectTwo, { status: 400, json: { error: { field: 'allowed_integrations' } } });
  const reconnectMissing = await createSession(gw, { allowed_integrations: ['key'], connection_id: 'c1' });
  t.match(reconnectMissing, { status: 404, json: { error: { code: 'unknown_connection' } } });

  const ok = await createSession(gw, { organization: { id: 'org-1' }, allowed_integrations: ['key'] });
  t.equal(ok.status, 201);
  const { token, connect_link, expires_at, end_user } = ok.json.data;
  t.equal(connect_link, `${gw.base}/oauth/connect?connect_session_token=${token}`);
  const ttl = Date.parse(expires_at) - Date.now();
  t.ok(ttl > 29 * 60_000 && ttl <= 30 * 60_000, 'valid for 30 minutes');
  t.same(end_user, { ...endUser, organization: { id: 'org-1' } });
  const stored = await gw.storage.keyv('connect-sessions').get(token);
  t.equal(stored, undefined, 'the token itself is not a storage key');
  t.ok(
    await gw.storage.keyv('connect-sessions').get(createHash('sha256').update(token).digest('base64url')),
    'only its hash is',
  );
});

t.test("the connect link: a chooser for several integrations of the session's environment", async (t) => {
  const gw = await start(t);
  const all = (await createSession(gw, {})).json.data.connect_link;
  const page = await browse(`${all}&origin=https://app.example.test`);
  t.equal(page.status, 200);
  for (const key of ['key', 'key2', 'gh', 'gh-unset'])
    t.match(page.text, `/oauth/connect/${key}?connect_session_token=`, `lists ${key}`);
  t.notMatch(page.text, '/oauth/connect/auth0?', 'client-credentials integrations need no end user');
  t.notMatch(page.text, 'prod-only', "another environment's integrations are not offered");
  t.match(page.text, 'Second &#60;key&#62;', 'names are escaped');
  t.match(page.text, '&#38;origin=https://app.example.test"', "the link's parameters are kept");

  const one = (await createSession(gw, { allowed_integrations: ['key'] })).json.data.connect_link;
  const straight = await browse(one, { stopBefore: () => true });
  t.match(straight.stoppedAt, `${gw.base}/oauth/connect/key?connect_session_token=`, 'one integration: straight to it');
});

t.test('refusals before the session is spent: not allowed, not configured, no end-user step', async (t) => {
  const gw = await start(t);
  const { token } = (await createSession(gw, { allowed_integrations: ['key', 'gh-unset', 'auth0'] })).json.data;
  const open = (key: string, query = '') =>
    browse(`${gw.base}/oauth/connect/${key}?connect_session_token=${token}${query}`);

  const notAllowed = await open('gh');
  t.equal(notAllowed.status, 403);
  t.equal(resultOf(notAllowed.text).message.error.code, 'integration_not_allowed');
  const unset = await open('gh-unset');
  t.equal(unset.status, 424);
  t.match(resultOf(unset.text).message.error, {
    code: 'integration_credentials_missing',
    message: /isn't available right now/,
  });
  t.notMatch(unset.text, 'PATCH', 'the end user never reads a configuration hint meant for developers');
  const cc = await open('auth0');
  t.match(resultOf(cc.text).message.error, { code: 'unsupported_auth_mode', message: /isn't available right now/ });
  t.same(
    failures(gw).map((e) => e.code),
    ['integration_not_allowed', 'integration_credentials_missing', 'unsupported_auth_mode'],
    'each reported to the customer',
  );
  t.match(failures(gw)[1].message, /PATCH \/integrations\/gh-unset/, 'the detail goes to the customer');
  t.match(failures(gw)[2].message, /POST \/connections/);

  const form = await open('key');
  t.equal(form.status, 200, 'the session still works after those refusals');
  t.match(form.text, 'name="apiKey"');
  const spent = await open('key');
  t.equal(resultOf(spent.text).message.error.code, 'invalid_connect_session');
});

t.test('result origin: only one the session allows; the link picks among them, never adds one', async (t) => {
  const gw = await start(t);
  const finish = async (session: Record<string, unknown>, query: string) => {
    const link = (await createSession(gw, { allowed_integrations: ['key'], ...session })).json.data.connect_link;
    const form = await browse(link + query);
    const done = await browse(`${gw.base}/oauth/connect/key`, {
      method: 'POST',
      form: { state: formStateOf(form.text), apiKey: 'k' },
    });
    return resultOf(done.text).origin;
  };
  t.equal(
    await finish({ origin: 'https://app.example.test' }, '&origin=https://evil.example'),
    'https://app.example.test',
  );
  t.equal(await finish({}, '&origin=https://spa.example.test'), null, 'a link cannot add an origin');
  const two = { allowed_origins: ['https://app.example.test', 'https://spa.example.test'] };
  t.equal(
    await finish(two, '&origin=https://spa.example.test'),
    'https://spa.example.test',
    "the SDK's page picks among the allowed ones",
  );
  t.equal(await finish(two, '&origin=https://evil.example'), 'https://app.example.test');
  t.equal(await finish({}, '&origin=javascript:alert(1)'), null);
  t.equal(await finish({}, ''), null);
});

t.test('a session naming a connection re-authorizes it: overridden, created_at kept, end user replaced', async (t) => {
  const gw = await start(t);
  const imported = await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'key',
      connection_id: 'c-1',
      credentials: { type: 'API_KEY', apiKey: 'old' },
      end_user: { id: 'eu-old' },
      metadata: { plan: 'pro' },
    },
  });
  const link = (await createSession(gw, { allowed_integrations: ['key'], connection_id: 'c-1' })).json.data
    .connect_link;
  const form = await browse(link);
  const done = await browse(`${gw.base}/oauth/connect/key`, {
    method: 'POST',
    form: { state: formStateOf(form.text), apiKey: 'new' },
  });
  t.match(resultOf(done.text).message, { ok: true, connection_id: 'c-1' });
  const c = (await gw.call('GET', '/connections/c-1?provider_config_key=key')).json.data;
  t.same(c.credentials, { type: 'API_KEY', apiKey: 'new' });
  t.equal(c.created_at, imported.json.data.created_at);
  t.same(c.end_user, endUser);
  t.same(c.metadata, { plan: 'pro' });
  t.match(gw.events.at(-1), { type: 'connection.overridden', connection_id: 'c-1', operation: 'connect' });
});

t.test('an expired session is refused and reported', async (t) => {
  const gw = await start(t);
  const { token, connect_link } = (await createSession(gw, { allowed_integrations: ['key'] })).json.data;
  const sessions = gw.storage.keyv<any>('connect-sessions');
  const key = createHash('sha256').update(token).digest('base64url');
  await sessions.set(key, { ...(await sessions.get(key)), expires_at: Date.now() - 1 });
  const res = await browse(connect_link);
  t.equal(res.status, 401);
  t.match(resultOf(res.text).message.error, { code: 'invalid_connect_session', message: /valid for a short time/ });
  t.match(failures(gw).at(-1), {
    code: 'invalid_connect_session',
    provider_config_key: 'key',
    end_user: { id: 'eu-1' },
  });
  const unknown = await browse(`${gw.base}/oauth/connect?connect_session_token=cst_forged`);
  t.equal(resultOf(unknown.text).message.error.code, 'invalid_connect_session');
});

t.test('connection settings fixed in the session must be URL-safe', async (t) => {
  const gw = await start(t);
  const bad = await createSession(gw, {
    integrations_config_defaults: { gh: { connection_config: { tenant: 'evil.com/x?y' } } },
  });
  t.match(bad, {
    status: 400,
    json: { error: { code: 'invalid_body', field: 'integrations_config_defaults.gh.connection_config.tenant' } },
  });
  const unknown = await createSession(gw, {
    integrations_config_defaults: { nope: { connection_config: { tenant: 'x' } } },
  });
  t.equal(unknown.status, 404);
});
