import t from 'tap';
import type { Test } from 'tap';
import { readCatalogDir } from '../../lib/providers/index.js';
import { listen, readBody } from '../helpers/http.js';
import { browse, resultOf } from './fixtures/browser.js';
import { startConnectGateway, type ConnectGateway } from './fixtures/gateway.js';

const tenantId = '0b4f2c1e-8a7d-4c3b-9e21-6f5a4d3c2b1a';
const client = { client_id: '11111111-2222-3333-4444-555555555555', client_secret: 'first-secret-value-0123' };

/**
 * A local stand-in for the directory suite's identity platform: the admin consent page
 * answers like the real one (admin_consent=True&tenant=… or error=…), the token endpoint
 * issues app-only tokens for the client credentials grant while the client secret is current.
 */
async function startFakeIdentityPlatform(t: Test) {
  const control = { decision: 'grant' as 'grant' | 'decline', tenant: tenantId, currentSecret: client.client_secret };
  const tokenRequests: { path: string; form: Record<string, string> }[] = [];
  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const json = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (/^\/[^/]+\/v2\.0\/adminconsent$/.test(url.pathname)) {
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      if (control.decision === 'grant') {
        back.searchParams.set('admin_consent', 'True');
        back.searchParams.set('tenant', control.tenant);
        back.searchParams.set('scope', url.searchParams.get('scope') ?? '');
      } else {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'AADSTS65004: User declined to consent to access the app.');
      }
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.statusCode = 302;
      res.setHeader('location', back.toString());
      return res.end();
    }
    if (/^\/[^/]+\/oauth2\/v2\.0\/token$/.test(url.pathname) && req.method === 'POST') {
      const form = Object.fromEntries(new URLSearchParams((await readBody(req)).toString()));
      tokenRequests.push({ path: url.pathname, form });
      if (form.client_secret !== control.currentSecret) {
        return json(401, {
          error: 'invalid_client',
          error_description: `AADSTS7000222: The provided client secret keys for app '${form.client_id}' are expired.`,
        });
      }
      return json(200, {
        token_type: 'Bearer',
        expires_in: 3599,
        access_token: `app-token-for-${url.pathname.split('/')[1]}`,
      });
    }
    json(404, { error: 'not_found' });
  });
  t.teardown(() => server.close());
  const builtIn = readCatalogDir().find((p) => p.name === 'microsoft-admin-consent');
  const provider = {
    ...builtIn,
    name: 'fake-ms-admin',
    logo_url: 'https://cdn.portico.dev/providers/fake-ms-admin.svg',
    admin_consent_url: builtIn?.admin_consent_url?.replace('https://login.microsoftonline.com', server.url),
    token_url: builtIn?.token_url?.replace('https://login.microsoftonline.com', server.url),
  };
  return { url: server.url, control, tokenRequests, provider };
}

async function link(
  gw: ConnectGateway,
  key: string,
  config?: Record<string, string>,
  extra: Record<string, unknown> = {},
) {
  const body = {
    end_user: { id: 'it-admin' },
    allowed_integrations: [key],
    ...(config ? { integrations_config_defaults: { [key]: { connection_config: config } } } : {}),
    ...extra,
  };
  return (await gw.call('POST', '/connect/sessions', { body })).json.data.connect_link as string;
}

const leaving = (gw: ConnectGateway) => (u: URL) => !u.href.startsWith(gw.base);

t.test(
  'delegated OAuth: the tenant comes from the connection config (common by default, organizations, a tenant id)',
  async (t) => {
    const gw = await startConnectGateway(t);
    await gw.call('POST', '/integrations', {
      body: {
        unique_key: 'ms',
        provider: 'microsoft',
        credentials: { type: 'OAUTH2', ...client, scopes: ['Files.Read.All', 'User.Read.All'] },
      },
    });
    const consent = async (config?: Record<string, string>, query = '') =>
      new URL((await browse((await link(gw, 'ms', config)) + query, { stopBefore: leaving(gw) })).stoppedAt as string);

    const common = await consent();
    t.equal(
      common.origin + common.pathname,
      'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
      'organizational and personal accounts: common',
    );
    t.equal(common.searchParams.get('scope'), 'offline_access Files.Read.All User.Read.All');
    t.equal(common.searchParams.get('response_mode'), 'query');
    t.equal(common.searchParams.get('code_challenge_method'), 'S256');
    t.equal(common.searchParams.get('redirect_uri'), `${gw.base}/oauth/callback`);
    t.equal(
      (await consent({ tenant: 'organizations' })).pathname,
      '/organizations/oauth2/v2.0/authorize',
      'organizational accounts only',
    );
    t.equal((await consent({ tenant: tenantId })).pathname, `/${tenantId}/oauth2/v2.0/authorize`, 'one tenant');
    t.equal(
      (await consent(undefined, '&connection_config.tenant=contoso.onmicrosoft.com')).pathname,
      '/contoso.onmicrosoft.com/oauth2/v2.0/authorize',
      'typed by the end user when the application fixes none',
    );
    t.equal(
      (await consent({ tenant: 'organizations' }, '&connection_config.tenant=common')).pathname,
      '/organizations/oauth2/v2.0/authorize',
      "the application's value wins",
    );
  },
);

t.test(".default mixed with resource scopes is refused before redirecting, in the provider's words", async (t) => {
  const gw = await startConnectGateway(t);
  // The catalog entry asks for https://graph.microsoft.com/.default; the integration adds a resource scope.
  const created = await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'ms-app',
      provider: 'microsoft-admin-consent',
      credentials: { type: 'OAUTH2_CC', ...client, scopes: ['Sites.Read.All'] },
    },
  });
  t.equal(created.status, 201);
  const connectLink = await link(gw, 'ms-app');
  const refused = await browse(connectLink, { stopBefore: leaving(gw) });
  t.equal(refused.stoppedAt, undefined, 'the end user never reaches the provider');
  t.equal(refused.status, 400);
  t.match(resultOf(refused.text).message.error, { code: 'invalid_scopes' });
  t.match(
    gw.events.at(-1),
    {
      type: 'connection.auth_attempt_failed',
      code: 'invalid_scopes',
      message: /\.default scope can't be combined with resource-specific scopes \(Sites\.Read\.All\)/,
    },
    'the customer reads the reason',
  );
  await gw.call('PATCH', '/integrations/ms-app', {
    body: { credentials: { type: 'OAUTH2_CC', ...client, scopes: [] } },
  });
  const fixed = await browse(connectLink, { stopBefore: leaving(gw) });
  t.match(
    fixed.stoppedAt,
    'https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize?',
    'the same link works once the integration is fixed',
  );
  const signIn = new URL(fixed.stoppedAt as string);
  t.equal(
    signIn.searchParams.get('prompt'),
    'admin_consent',
    'no tenant pinned: the administrator signs in, the ID token will prove the tenant',
  );
  t.equal(signIn.searchParams.get('scope'), 'openid https://graph.microsoft.com/.default');
});

t.test(
  'admin consent for a tenant the customer pinned: the administrator grants it, the connection gets app-only tokens for it',
  async (t) => {
    let idp: Awaited<ReturnType<typeof startFakeIdentityPlatform>> | undefined;
    const gw = await startConnectGateway(t, async () => {
      idp = await startFakeIdentityPlatform(t);
      return { providers: [idp.provider] };
    });
    const fake = idp as NonNullable<typeof idp>;
    await gw.call('POST', '/integrations', {
      body: { unique_key: 'graph-app', provider: 'fake-ms-admin', credentials: { type: 'OAUTH2_CC', ...client } },
    });
    const pinned = (config?: Record<string, string>) => link(gw, 'graph-app', config, { tenant: tenantId });
    const shared = await gw.call('POST', '/connect/sessions', {
      body: { end_user: { id: 'it-admin' }, tenant: 'organizations' },
    });
    t.match(
      shared,
      { status: 400, json: { error: { code: 'invalid_body', field: 'tenant' } } },
      'a pinned tenant names one organization',
    );

    const landed = await browse(await pinned());
    const consentUrl = new URL(landed.hops.find((h) => h.location?.startsWith(fake.url))?.location ?? 'http://x');
    t.equal(consentUrl.pathname, `/${tenantId}/v2.0/adminconsent`, "the pinned tenant's consent page");
    t.equal(consentUrl.searchParams.get('scope'), 'https://graph.microsoft.com/.default');
    t.equal(consentUrl.searchParams.get('client_id'), client.client_id);
    const { message } = resultOf(landed.text);
    t.equal(message.ok, true, landed.text);
    t.same(
      fake.tokenRequests.map((r) => r.path),
      [`/${tenantId}/oauth2/v2.0/token`],
      'the token URL carries the consenting tenant',
    );
    t.match(fake.tokenRequests[0]?.form, {
      grant_type: 'client_credentials',
      scope: 'https://graph.microsoft.com/.default',
      client_id: client.client_id,
    });
    const c = (await gw.call('GET', `/connections/${message.connection_id}?provider_config_key=graph-app`)).json.data;
    t.match(c.credentials, { type: 'OAUTH2_CC', token: `app-token-for-${tenantId}` });
    t.same(c.connection_config, { tenant: tenantId });

    fake.control.decision = 'decline';
    const declined = await browse(await pinned());
    t.match(resultOf(declined.text).message.error, { code: 'authorization_denied', message: /was not granted/ });
    t.notMatch(declined.text, /AADSTS65004/, "the provider's words go to the customer only");
    t.match(gw.events.filter((e) => e.type === 'connection.auth_attempt_failed').at(-1), {
      code: 'authorization_denied',
      message: /AADSTS65004/,
    });

    // The client secret expired: the failure says so; a new secret on the integration fixes it.
    fake.control.decision = 'grant';
    fake.control.currentSecret = 'second-secret-value-4567';
    const expired = await browse(await pinned());
    t.match(resultOf(expired.text).message.error, { code: 'token_exchange_failed' });
    t.match(
      gw.events.at(-1),
      { type: 'connection.auth_attempt_failed', message: /invalid_client.*AADSTS7000222.*expired/ },
      "the customer reads the provider's words",
    );
    await gw.call('PATCH', '/integrations/graph-app', {
      body: { credentials: { type: 'OAUTH2_CC', ...client, client_secret: 'second-secret-value-4567' } },
    });
    const renewed = await browse(await pinned());
    t.equal(resultOf(renewed.text).message.ok, true);

    // A session for one tenant does not accept consent from another.
    const other = await browse(
      await link(gw, 'graph-app', undefined, { tenant: '99999999-0000-0000-0000-000000000000' }),
    );
    t.match(resultOf(other.text).message.error, { code: 'tenant_not_proven' });
    t.notOk(
      fake.tokenRequests.some((r) => r.path.startsWith('/99999999')),
      'no token was asked for either tenant',
    );
    t.equal((await gw.call('GET', '/connections')).json.data.length, 2);
  },
);
