import t from 'tap';
import type { Test } from 'tap';
import { browse, cookieOf, resultOf } from '../oauth/fixtures/browser.js';
import { startConnectGateway, type ConnectGateway } from '../oauth/fixtures/gateway.js';
import { adminClient, startIdentityPlatform, type IdentityPlatform } from './fixtures/identity-platform.js';

// Attacker tests for issue item 1: the tenant of an admin consent is proven, never read from the
// callback's query string.

const victim = 'tenant-victim';

async function start(t: Test) {
  let platform: IdentityPlatform | undefined;
  const gw = await startConnectGateway(t, async (base) => {
    platform = await startIdentityPlatform(t, { redirectUri: `${base}/oauth/callback` });
    return { providers: [platform.provider] };
  });
  const res = await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'directory',
      provider: 'local-directory-admin',
      credentials: { type: 'OAUTH2_CC', ...adminClient },
    },
  });
  if (res.status !== 201) throw new Error(res.text);
  return { gw, idp: platform as IdentityPlatform };
}

const link = async (gw: ConnectGateway, extra: Record<string, unknown> = {}) =>
  (
    await gw.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'eu-attacker' }, allowed_integrations: ['directory'], ...extra },
    })
  ).json.data.connect_link as string;
const connections = async (gw: ConnectGateway) =>
  (await gw.call('GET', '/connections')).json.data as { connection_id: string }[];

t.test("no tenant pinned: the ID token proves the tenant; the query string's tenant is ignored", async (t) => {
  const { gw, idp } = await start(t);
  const landed = await browse(await link(gw));
  const signIn = new URL(landed.hops.find((h) => h.location?.startsWith(`${idp.url}/auth`))?.location ?? 'http://x');
  t.equal(signIn.searchParams.get('prompt'), 'admin_consent');
  t.equal(signIn.searchParams.get('scope'), 'openid api:read');
  t.ok(signIn.searchParams.get('nonce'), 'an OpenID nonce binds the ID token to this flow');
  const { message } = resultOf(landed.text);
  t.equal(message.ok, true, landed.text);
  const c = (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=directory`)).json.data;
  t.same(c.connection_config, { tenant: 'tenant-aaaa' }, 'the tenant the ID token names');
  t.match(c.credentials, { type: 'OAUTH2_CC', token: 'app-token-for-tenant-aaaa' });
  t.same(idp.tokenRequests, [
    { tenant: 'organizations', grant_type: 'authorization_code' },
    { tenant: 'tenant-aaaa', grant_type: 'client_credentials' },
  ]);
});

t.test('a forged callback naming another tenant creates nothing and asks no token for that tenant', async (t) => {
  const { gw, idp } = await start(t);
  // The end user opens their own link, reads the state, and skips the provider.
  const stopped = await browse(await link(gw), { stopBefore: (u) => u.href.startsWith(idp.url) });
  const state = new URL(stopped.stoppedAt as string).searchParams.get('state') as string;
  const forged = await fetch(`${gw.base}/oauth/callback?admin_consent=True&tenant=${victim}&state=${state}`, {
    headers: cookieOf(stopped.jar),
  });
  t.equal(forged.status, 403);
  t.equal(resultOf(await forged.text()).message.error.code, 'tenant_not_proven');
  t.same(await connections(gw), []);
  t.same(idp.tokenRequests, [], 'no token request at all, none for the named tenant');

  // Signing in as themselves and appending another tenant to the way back gets only their own tenant.
  const own = await browse(await link(gw), { stopBefore: (u) => u.pathname === '/oauth/callback' });
  const callback = new URL(own.stoppedAt as string);
  callback.searchParams.set('tenant', victim);
  callback.searchParams.set('admin_consent', 'True');
  const landed = await fetch(callback, { headers: cookieOf(own.jar) });
  const { message } = resultOf(await landed.text());
  t.equal(message.ok, true);
  t.same(
    (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=directory`)).json.data
      .connection_config,
    { tenant: 'tenant-aaaa' },
  );
  t.notOk(
    idp.tokenRequests.some((r) => r.tenant === victim),
    'never a token for the tenant in the query string',
  );
});

t.test("an ID token not signed by the platform's published keys proves nothing", async (t) => {
  const { gw, idp } = await start(t);
  idp.control.forgeIdToken = victim;
  const landed = await browse(await link(gw));
  t.equal(resultOf(landed.text).message.error.code, 'tenant_not_proven');
  t.match(gw.events.at(-1), {
    type: 'connection.auth_attempt_failed',
    code: 'tenant_not_proven',
    message: /did not verify/,
  });
  t.same(await connections(gw), []);
  t.notOk(idp.tokenRequests.some((r) => r.tenant === victim));
});

t.test(
  'a tenant pinned by the customer: its consent page; consent reported for another tenant is refused',
  async (t) => {
    const { gw, idp } = await start(t);
    const refused = await gw.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'eu-1' }, tenant: 'organizations' },
    });
    t.match(refused, { status: 400, json: { error: { field: 'tenant' } } }, 'a multi-tenant alias cannot be pinned');

    const ok = await browse(await link(gw, { tenant: 'tenant-pinned' }));
    t.ok(ok.hops.some((h) => h.location?.startsWith(`${idp.url}/t/tenant-pinned/adminconsent?`)));
    idp.control.consentTenant = 'tenant-pinned';
    const pinned = await browse(await link(gw, { tenant: 'tenant-pinned' }));
    t.equal(resultOf(pinned.text).message.ok, true, pinned.text);

    const stopped = await browse(await link(gw, { tenant: 'tenant-pinned' }), {
      stopBefore: (u) => u.href.startsWith(idp.url),
    });
    const state = new URL(stopped.stoppedAt as string).searchParams.get('state') as string;
    const forged = await fetch(`${gw.base}/oauth/callback?admin_consent=True&tenant=${victim}&state=${state}`, {
      headers: cookieOf(stopped.jar),
    });
    t.equal(resultOf(await forged.text()).message.error.code, 'tenant_not_proven');
    t.notOk(
      idp.tokenRequests.some((r) => r.tenant === victim),
      'no token for the forged tenant',
    );
    t.equal((await connections(gw)).length, 1, 'only the genuine consent created a connection');
  },
);
