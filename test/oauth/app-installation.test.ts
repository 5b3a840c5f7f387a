import t from 'tap';
import type { Test } from 'tap';
import { browse, resultOf } from './fixtures/browser.js';
import { appClient, appId } from './fixtures/fake-code-host.js';
import { startCodeHostGateway } from './fixtures/code-host-gateway.js';
import type { ConnectGateway } from './fixtures/gateway.js';

// The opt-out ('app'), user authorization ('app-user'), neither ('app-bare').
const start = (t: Test) =>
  startCodeHostGateway(t, { app: 'opt-out', 'app-user': 'user-authorization', 'app-bare': 'bare' });

async function connectLink(gw: ConnectGateway, key: string) {
  const res = await gw.call('POST', '/connect/sessions', {
    body: {
      end_user: { id: 'eu-7', email: 'dev@acme.test' },
      allowed_integrations: [key],
      origin: 'https://app.example.test',
    },
  });
  return res.json.data.connect_link as string;
}

const failures = (gw: ConnectGateway) => gw.events.filter((e) => e.type === 'connection.auth_attempt_failed') as any[];

t.test('connect link → installation page → setup URL → APP connection holding the installation id', async (t) => {
  const { gw, host } = await start(t);
  const integration = await gw.call('GET', '/integrations/app');
  t.equal(
    integration.json.data.setup_url,
    `${gw.base}/oauth/app-setup`,
    'the setup URL is shown on the integration (spec 2.5)',
  );
  t.equal(integration.json.data.callback_url, `${gw.base}/oauth/callback`);

  const landed = await browse(await connectLink(gw, 'app'));
  const install = landed.hops.find((h) => h.location?.startsWith(host.appLink));
  t.match(
    install?.location,
    new RegExp(`^${host.appLink}/installations/new\\?state=st_`),
    "sent to the app's installation page with a state",
  );
  t.equal(landed.status, 200, landed.text);
  const { message } = resultOf(landed.text);
  t.equal(message.ok, true);
  const connection = (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=app`)).json.data;
  t.same(connection.credentials, { type: 'APP', installation_id: '42' });
  t.same(connection.end_user, { id: 'eu-7', email: 'dev@acme.test' });
  t.match(
    host.seen.find((s) => s.path === '/app/installations/42'),
    { jwtIssuer: appId },
    "the installation was checked with a JWT signed by the app's private key",
  );
  t.match(
    gw.events.find((e) => e.type === 'connection.created'),
    { provider_config_key: 'app', operation: 'oauth' },
  );
});

t.test("an installation id that is not this app's is refused", async (t) => {
  const { gw, host } = await start(t);
  host.control.installationId = '99';
  const landed = await browse(await connectLink(gw, 'app'));
  t.equal(landed.status, 403);
  t.match(resultOf(landed.text).message.error, { code: 'installation_not_verified' });
  t.match(failures(gw).at(-1)?.message, /99/);
  t.match(failures(gw).at(-1), { code: 'installation_not_verified', provider_config_key: 'app' });
  t.same((await gw.call('GET', '/connections')).json.data, []);
});

t.test(
  'with user authorization the end user must be able to access the installation; user tokens are kept',
  async (t) => {
    const { gw, host } = await start(t);
    const landed = await browse(await connectLink(gw, 'app-user'));
    t.ok(
      landed.hops.some((h) =>
        h.location?.startsWith(`${host.url}/login/oauth/authorize?client_id=${appClient.client_id}`),
      ),
      'after the setup URL, the user authorizes the app',
    );
    const { message } = resultOf(landed.text);
    t.equal(message.ok, true, landed.text);
    const c = (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=app-user`)).json.data
      .credentials;
    t.match(c, {
      type: 'APP',
      installation_id: '42',
      user_access_token: 'ghu_usertoken',
      user_refresh_token: 'ghr_userrefresh',
    });
    t.ok(Date.parse(c.user_expires_at) > Date.now() + 7 * 3600_000, "the expiring user token's expiry is stored");
    t.match(host.seen.find((s) => s.path === '/login/oauth/access_token')?.form, {
      grant_type: 'authorization_code',
      code: 'code-after-install',
      redirect_uri: `${gw.base}/oauth/callback`,
    });

    // 77 is an installation of the app, but not one this user can access: a spoofed setup redirect.
    host.control.installationId = '77';
    const spoofed = await browse(await connectLink(gw, 'app-user'));
    t.match(resultOf(spoofed.text).message.error, { code: 'installation_not_verified' });
    t.match(failures(gw).at(-1)?.message, /cannot access installation 77/);
    t.equal((await gw.call('GET', '/connections?provider_config_key=app-user')).json.data.length, 1);
  },
);

t.test("without the app's client credentials and without the opt-out, an app install does not start", async (t) => {
  const { gw, host } = await start(t);
  const landed = await browse(await connectLink(gw, 'app-bare'));
  t.equal(landed.status, 424);
  t.notOk(
    landed.hops.some((h) => h.location?.startsWith(host.appLink)),
    'the end user is not sent to the installation page',
  );
  t.match(resultOf(landed.text).message.error, {
    code: 'integration_credentials_missing',
    message: /isn't available right now/,
  });
  t.match(
    failures(gw).at(-1)?.message,
    /client_id and client_secret.*insecure_trust_setup_url_installation_id/,
    'the customer learns what to set',
  );
  t.same((await gw.call('GET', '/connections')).json.data, []);
});

t.test("the user's installations are read page after page: one on the third page is found", async (t) => {
  const { gw, host } = await start(t);
  host.control.userInstallations = Array.from({ length: 250 }, (_, i) => String(1000 + i));
  host.control.userInstallations[230] = '42';
  const landed = await browse(await connectLink(gw, 'app-user'));
  t.equal(resultOf(landed.text).message.ok, true, landed.text);
  t.equal(host.seen.filter((s) => s.path === '/user/installations').length, 3, 'three pages of 100');
  host.seen.length = 0;
  host.control.userInstallations = Array.from({ length: 250 }, (_, i) => String(1000 + i));
  const absent = await browse(await connectLink(gw, 'app-user'));
  t.match(resultOf(absent.text).message.error, { code: 'installation_not_verified' });
  t.equal((await gw.call('GET', '/connections')).json.data.length, 1);
});

t.test('user authorization during installation: back at the callback URL with code and installation id', async (t) => {
  const { gw, host } = await start(t);
  host.control.userAuthorizationDuringInstall = true;
  const landed = await browse(await connectLink(gw, 'app-user'));
  t.notOk(
    landed.hops.some((h) => h.url.includes('/oauth/app-setup')),
    'the setup URL is skipped',
  );
  const { message } = resultOf(landed.text);
  t.equal(message.ok, true, landed.text);
  const c = (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=app-user`)).json.data
    .credentials;
  t.match(c, { installation_id: '42', user_access_token: 'ghu_usertoken' });
});

t.test('an installation waiting for approval, and one not started from a connect link', async (t) => {
  const { gw, host } = await start(t);
  host.control.setupAction = 'request';
  const pending = await browse(await connectLink(gw, 'app'));
  t.match(resultOf(pending.text).message.error, { code: 'installation_pending', message: /approve/ });
  t.equal(failures(gw).at(-1)?.code, 'installation_pending');

  const marketplace = await fetch(`${gw.base}/oauth/app-setup?installation_id=42&setup_action=install`);
  t.equal(marketplace.status, 400);
  t.match(resultOf(await marketplace.text()).message.error, { code: 'wrong_redirect' });
  const duringInstall = await fetch(`${gw.base}/oauth/callback?code=x&installation_id=42&setup_action=install`);
  t.equal(resultOf(await duringInstall.text()).message.error.code, 'wrong_redirect');
  t.same((await gw.call('GET', '/connections')).json.data, []);
});
