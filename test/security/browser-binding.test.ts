import t from 'tap';
import { createHash } from 'node:crypto';
import { startGateway } from '../helpers/gateway.js';
import { postClient } from '../oauth/fixtures/authorization-server.js';
import { browse, formStateOf, resultOf } from '../oauth/fixtures/browser.js';
import { startCodeHostGateway } from '../oauth/fixtures/code-host-gateway.js';
import { startConnectGateway, testProvider, type ConnectGateway } from '../oauth/fixtures/gateway.js';
import { startOAuthPair } from '../oauth/fixtures/oauth-setup.js';

// Attacker tests for issue item 3: a flow finishes only in the browser that started it.

const connections = async (gw: ConnectGateway) => (await gw.call('GET', '/connections')).json.data as unknown[];
const link = async (gw: ConnectGateway, key: string) =>
  (
    await gw.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'eu-attacker' }, allowed_integrations: [key], origin: 'https://app.example.test' },
    })
  ).json.data.connect_link as string;

t.test(
  "connection fixation: a consent URL carrying someone else's state finishes nothing in the victim's browser",
  async (t) => {
    const { gw, as } = await startOAuthPair(t);
    await gw.call('POST', '/integrations', {
      body: {
        unique_key: 'oidc',
        provider: 'local-oidc',
        credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] },
      },
    });
    // The attacker starts a flow for their own end user and keeps the provider's consent URL.
    const attacker = await browse(await link(gw, 'oidc'), { stopBefore: (u) => u.href.startsWith(as.url) });
    const consentUrl = attacker.stoppedAt as string;
    // The victim, logged in at the provider, opens it: a browser without the attacker's cookie.
    const victim = await browse(consentUrl);
    t.equal(victim.status, 403);
    const { origin, message } = resultOf(victim.text);
    t.equal(message.error.code, 'browser_mismatch');
    t.match(message.error.message, /Start again from the application/);
    t.equal(origin, null, 'nothing is posted to any window');
    t.same(await connections(gw), [], "the victim's account is not attached to the attacker's end user");
    t.same(as.tokenRequests, [], "the victim's code was never exchanged");

    // The same flow still finishes in the browser that started it.
    const own = await browse(consentUrl, { jar: attacker.jar });
    t.equal(resultOf(own.text).message.ok, true, own.text);
  },
);

t.test(
  "the start sets an HttpOnly, SameSite=Lax cookie scoped to the gateway's /oauth routes; Secure over https",
  async (t) => {
    const { gw } = await startOAuthPair(t, { prefix: '/portico' });
    await gw.call('POST', '/integrations', {
      body: {
        unique_key: 'oidc',
        provider: 'local-oidc',
        credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] },
      },
    });
    const started = await browse(await link(gw, 'oidc'), { stopBefore: () => true });
    const start = await fetch(started.stoppedAt as string, { redirect: 'manual' });
    const [cookie] = start.headers.getSetCookie();
    const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') as string;
    t.match(
      cookie,
      new RegExp(`^portico_flow_${createHash('sha256').update(state).digest('hex').slice(0, 16)}=[A-Za-z0-9_-]{43}; `),
    );
    t.match(cookie, '; Path=/portico/oauth; Max-Age=600; HttpOnly; SameSite=Lax');
    t.notMatch(cookie, 'Secure', 'plain http: no Secure attribute (the browser would drop the cookie)');

    const https = await startGateway(t, {
      baseUrl: 'https://portico.example.test',
      providers: [testProvider('local-key', { auth_mode: 'API_KEY', proxy: { base_url: 'https://api.example.test' } })],
    });
    await https.call('POST', '/integrations', { body: { unique_key: 'key', provider: 'local-key' } });
    const session = (await https.call('POST', '/connect/sessions', { body: { end_user: { id: 'eu-1' } } })).json.data
      .token;
    const form = await fetch(`${https.url}/oauth/connect/key?connect_session_token=${session}`);
    t.match(form.headers.getSetCookie()[0], /; HttpOnly; SameSite=Lax; Secure$/);
  },
);

t.test('the API key form: a submit without the cookie is refused and spends nothing', async (t) => {
  const gw = await startConnectGateway(t, {
    providers: [testProvider('local-key', { auth_mode: 'API_KEY', proxy: { base_url: 'https://api.example.test' } })],
  });
  await gw.call('POST', '/integrations', { body: { unique_key: 'key', provider: 'local-key' } });
  const page = await browse(await link(gw, 'key'));
  const state = formStateOf(page.text);
  const stranger = await browse(`${gw.base}/oauth/connect/key`, {
    method: 'POST',
    form: { state, apiKey: 'attacker-key' },
  });
  t.equal(resultOf(stranger.text).message.error.code, 'browser_mismatch');
  t.same(await connections(gw), []);
  const owner = await browse(`${gw.base}/oauth/connect/key`, {
    method: 'POST',
    form: { state, apiKey: 'the-users-key' },
    jar: page.jar,
  });
  t.equal(resultOf(owner.text).message.ok, true, 'the starting browser still finishes');
});

t.test('the app setup URL: a redirect without the cookie is refused', async (t) => {
  const { gw } = await startCodeHostGateway(t, { app: 'user-authorization' });
  const stopped = await browse(await link(gw, 'app'), { stopBefore: (u) => u.pathname === '/oauth/app-setup' });
  const stranger = await fetch(stopped.stoppedAt as string);
  t.equal(resultOf(await stranger.text()).message.error.code, 'browser_mismatch');
  const owner = await browse(stopped.stoppedAt as string, { jar: stopped.jar });
  t.equal(resultOf(owner.text).message.ok, true, owner.text);
  t.equal((await connections(gw)).length, 1);
});
