import { createHash } from 'node:crypto';
import t from 'tap';
import type { Test } from 'tap';
import { devKey, prodKey } from '../helpers/gateway.js';
import { postClient } from '../oauth/fixtures/authorization-server.js';
import { browse, cookieOf, formStateOf, resultOf } from '../oauth/fixtures/browser.js';
import { testProvider } from '../oauth/fixtures/gateway.js';
import { startOAuthPair } from '../oauth/fixtures/oauth-setup.js';
import { fastPolicy, receiver, waitFor } from '../webhooks/helpers.js';

// Attacker tests for issue items 3 (postMessage target) and 4 (replays amplify).

async function start(t: Test) {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const keyed = testProvider('local-key', { auth_mode: 'API_KEY', proxy: { base_url: 'https://api.example.test' } });
  const { gw, as } = await startOAuthPair(t, {
    extraProviders: [keyed],
    gateway: {
      webhooks: fastPolicy,
      environments: [
        { name: 'dev', secretKey: devKey, webhookUrl: hook.url, webhookSigningKey: 'whsk_replays_0123456789abcdef' },
        { name: 'prod', secretKey: prodKey },
      ],
    },
  });
  await gw.call('POST', '/integrations', {
    body: {
      unique_key: 'oidc',
      provider: 'local-oidc',
      credentials: { type: 'OAUTH2', ...postClient, scopes: ['api:read'] },
    },
  });
  await gw.call('POST', '/integrations', { body: { unique_key: 'key', provider: 'local-key' } });
  const failedAuth = () => hook.payloads().filter((p) => p.type === 'auth' && p.success === false);
  const session = async (body: Record<string, unknown>) =>
    (await gw.call('POST', '/connect/sessions', { body: { end_user: { id: 'eu-1' }, ...body } })).json.data
      .connect_link as string;
  return { gw, as, hook, failedAuth, session };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

t.test('a failed flow is reported once, however often its state is replayed', async (t) => {
  const { gw, as, failedAuth, session } = await start(t);
  as.control.decision = 'deny';
  const stopped = await browse(await session({ allowed_integrations: ['oidc'] }), {
    stopBefore: (u) => u.pathname === '/oauth/callback',
  });
  const callback = stopped.stoppedAt as string;
  const first = await fetch(callback, { headers: cookieOf(stopped.jar) });
  t.equal(resultOf(await first.text()).message.error.code, 'authorization_denied');
  await waitFor(() => failedAuth().length === 1, 'the one failure webhook', 10_000);

  // 60 replays: anonymous ones (no cookie) and ones from the starting browser.
  for (let i = 0; i < 30; i++) {
    const anonymous = await (await fetch(callback)).text();
    await (await fetch(callback, { headers: cookieOf(stopped.jar) })).text();
    if (i === 0) {
      t.equal(resultOf(anonymous).origin, null, 'a replay answers a plain page (nothing posted)');
      t.equal(resultOf(anonymous).message.error.code, 'state_replayed');
    }
  }
  await settle();
  t.equal(failedAuth().length, 1, 'still one auth failure webhook');
  t.equal(
    gw.logs.filter((l) => l.includes('replayed authorization state')).length,
    60,
    'each replay is counted in the logs',
  );
  const deliveries = (await gw.call('GET', '/webhooks/deliveries?type=auth')).json.data;
  t.equal(
    deliveries.filter((d: { payload?: { success?: boolean } }) => d.payload?.success === false).length <= 1,
    true,
    'the deliveries log keeps its history',
  );
});

t.test('an expired state and a used link: one report each, then logs only', async (t) => {
  const { gw, failedAuth, session } = await start(t);
  const stopped = await browse(await session({ allowed_integrations: ['oidc'] }), {
    stopBefore: (u) => u.pathname === '/oauth/callback',
  });
  const callback = new URL(stopped.stoppedAt as string);
  const states = gw.storage.keyv<any>('oauth-states');
  const key = createHash('sha256')
    .update(callback.searchParams.get('state') as string)
    .digest('base64url');
  await states.set(key, { ...(await states.get(key)), expires_at: Date.now() - 1 });
  for (let i = 0; i < 20; i++) await (await fetch(callback, { headers: cookieOf(stopped.jar) })).text();
  await waitFor(() => failedAuth().length === 1, 'the expiry reported', 10_000);

  const link = await session({ allowed_integrations: ['key'] });
  const form = await browse(link);
  await browse(`${gw.base}/oauth/connect/key`, {
    method: 'POST',
    form: { state: formStateOf(form.text), apiKey: 'k' },
    jar: form.jar,
  });
  for (let i = 0; i < 20; i++) await browse(link);
  await settle();
  t.same(
    failedAuth().map((p) => p.error.code),
    ['state_expired'],
    'one webhook for the expired state, none for the reopened link',
  );
});

t.test("the result is posted only to an origin the customer's backend allowed", async (t) => {
  const { gw, session } = await start(t);
  const originOf = async (body: Record<string, unknown>, query: string) => {
    const form = await browse((await session({ allowed_integrations: ['key'], ...body })) + query);
    const done = await browse(`${gw.base}/oauth/connect/key`, {
      method: 'POST',
      form: { state: formStateOf(form.text), apiKey: 'k' },
      jar: form.jar,
    });
    return resultOf(done.text).origin;
  };
  t.equal(await originOf({}, '&origin=https://evil.example'), null, 'no allowed origin: the link cannot name one');
  t.equal(
    await originOf({ allowed_origins: ['https://app.example.test'] }, '&origin=https://evil.example'),
    'https://app.example.test',
  );
  t.equal(
    await originOf(
      { allowed_origins: ['https://app.example.test', 'https://admin.example.test'] },
      '&origin=https://admin.example.test',
    ),
    'https://admin.example.test',
  );
  const created = await gw.call('POST', '/connect/sessions', {
    body: { end_user: { id: 'eu-1' }, allowed_origins: ['https://app.example.test/path'] },
  });
  t.match(
    created,
    { status: 400, json: { error: { code: 'invalid_body' } } },
    'an allowed origin is an origin, nothing more',
  );
});
