import t from 'tap';
import { postClient } from './fixtures/authorization-server.js';
import { browse, resultOf } from './fixtures/browser.js';
import type { ConnectGateway } from './fixtures/gateway.js';
import { startOAuthPair } from './fixtures/oauth-setup.js';

/** Connects through the real authorization server and returns the new connection's id. */
async function connectOnce(gw: ConnectGateway): Promise<string> {
  await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'oidc',
      provider: 'local-oidc',
      credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] },
    },
  });
  const link = (
    await gw.call('POST', '/connect/sessions', { body: { end_user: { id: 'eu-1' }, allowed_integrations: ['oidc'] } })
  ).json.data.connect_link;
  const { message } = resultOf((await browse(link)).text);
  if (!message.ok) throw new Error(JSON.stringify(message));
  return message.connection_id;
}

const proxyGet = (gw: ConnectGateway, id: string) =>
  fetch(`${gw.base}/proxy/me`, {
    headers: {
      authorization: 'Bearer sk_test_dev_0123456789abcdef',
      'provider-config-key': 'oidc',
      'connection-id': id,
    },
  });
const tokensOf = async (gw: ConnectGateway, id: string) =>
  (await gw.call('GET', `/connections/${id}?provider_config_key=oidc`)).json.data.credentials;

t.test(
  'after connecting, the proxy refreshes the token at the authorization server when the API refuses it',
  async (t) => {
    const { gw, as } = await startOAuthPair(t);
    const id = await connectOnce(gw);
    const first = await tokensOf(gw, id);

    const ok = await proxyGet(gw, id);
    t.equal(ok.status, 200);
    t.same(await ok.json(), { account: 'alice', scope: 'openid offline_access api:read', path: '/me' });
    t.equal(as.apiCalls.at(-1)?.token, first.access_token, 'the stored token was used as is');

    await as.revokeAccessToken(first.access_token);
    const afterRevocation = await proxyGet(gw, id);
    t.equal(afterRevocation.status, 200, 'the refused token was refreshed and the call retried');
    t.equal((await afterRevocation.json()).account, 'alice');
    const second = await tokensOf(gw, id);
    t.not(second.access_token, first.access_token, 'a new access token is stored');
    t.same(
      as.apiCalls.slice(-2).map((c) => c.accepted),
      [false, true],
    );
    t.equal(as.apiCalls.at(-1)?.token, second.access_token);
  },
);

t.test('a token about to expire is refreshed before the call', async (t) => {
  // 60 s tokens are inside the refresh margin from the start.
  const { gw, as } = await startOAuthPair(t, { accessTokenTtl: 60 });
  const id = await connectOnce(gw);
  const first = await tokensOf(gw, id);
  const res = await proxyGet(gw, id);
  t.equal(res.status, 200);
  await res.body?.cancel();
  const second = await tokensOf(gw, id);
  t.not(second.access_token, first.access_token);
  t.same(
    as.apiCalls.map((c) => c.accepted),
    [true],
    'one API call, with the refreshed token',
  );
  t.equal(as.apiCalls[0]?.token, second.access_token);
});
