import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import t from 'tap';
import { toExpress } from '../../adapters/express/index.js';
import { verifyWebhookSignature } from '../../lib/client/webhooks.js';
import { devKey, prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { appKeyPair } from '../helpers/keys.js';
import { fastPolicy, receiver, waitFor } from './helpers.js';

const webhookSecret = "It's a Secret to Everybody";
const signingKey = 'whsk_inbound_test_0123456789abcdef';
const { privateKey } = appKeyPair();

/** X-Hub-Signature-256 made with WebCrypto: a different code path from the gateway's node:crypto. */
async function githubSignature(body: string, secret = webhookSecret): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const data = new TextEncoder().encode(body);
  return `sha256=${Buffer.from(await crypto.subtle.sign('HMAC', key, data)).toString('hex')}`;
}

async function setup(t: Parameters<Parameters<typeof import('tap').test>[0]>[0]) {
  const releases: (() => void)[] = [];
  /** When on, the customer's receiver holds each request until released. */
  const hold = { on: false };
  const hook = await receiver(async (_req, res) => {
    if (hold.on) await new Promise<void>((resolve) => releases.push(resolve));
    res.end('ok');
  });
  t.teardown(async () => {
    for (const release of releases) release();
    await hook.close();
  });
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: hook.url, webhookSigningKey: signingKey },
      { name: 'prod', secretKey: prodKey },
    ],
    webhooks: fastPolicy,
  });
  const credentials = {
    type: 'APP',
    app_id: '123456',
    app_link: 'https://github.com/apps/portico-test',
    private_key: privateKey,
    webhook_secret: webhookSecret,
  };
  t.equal(
    (await gw.call('POST', '/integrations', { body: { unique_key: 'gh-app', provider: 'github-app', credentials } }))
      .status,
    201,
  );
  t.equal(
    (
      await gw.call('POST', '/integrations', {
        body: {
          unique_key: 'gh-nosecret',
          provider: 'github-app',
          credentials: { ...credentials, webhook_secret: undefined },
        },
      })
    ).status,
    201,
  );
  t.equal((await gw.call('POST', '/integrations', { body: { unique_key: 'stripe', provider: 'stripe' } })).status, 201);
  for (const [id, installation] of [
    ['acme', '1001'],
    ['acme-bis', '1001'],
    ['globex', 2002],
  ] as const) {
    const res = await gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'gh-app',
        connection_id: id,
        credentials: { type: 'APP', installation_id: installation },
      },
    });
    t.equal(res.status, 201, `connection ${id}`);
  }
  // The three creation events first, so what follows is only about the provider's webhook.
  await waitFor(() => hook.received.length === 3, 'the auth events', 10_000);
  hook.received.length = 0;
  return { gw, hook, releases, hold };
}

const post = (gw: TestGateway, path: string, body: string, headers: Record<string, string>) =>
  gw.call('POST', path, { body, key: null, headers: { 'content-type': 'application/json', ...headers } });

const forwards = (hook: Awaited<ReturnType<typeof receiver>>) => hook.payloads().filter((p) => p.type === 'forward');

t.test('a missing or wrong X-Hub-Signature-256 is refused with 401 and nothing is forwarded', async (t) => {
  const { gw, hook } = await setup(t);
  const body = JSON.stringify({ action: 'opened', installation: { id: 1001 } });
  const cases: [string, Record<string, string>, string][] = [
    ['no signature', { 'x-github-event': 'issues' }, '/webhook/dev/gh-app'],
    [
      'signed with another secret',
      { 'x-hub-signature-256': await githubSignature(body, 'not the secret') },
      '/webhook/dev/gh-app',
    ],
    ['signature of another body', { 'x-hub-signature-256': await githubSignature(body + ' ') }, '/webhook/dev/gh-app'],
    ['malformed', { 'x-hub-signature-256': 'sha256=xyz' }, '/webhook/dev/gh-app'],
    [
      'the old SHA-1 header only',
      { 'x-hub-signature': 'sha1=0000000000000000000000000000000000000000' },
      '/webhook/dev/gh-app',
    ],
    [
      'integration without a webhook secret',
      { 'x-hub-signature-256': await githubSignature(body) },
      '/webhook/dev/gh-nosecret',
    ],
  ];
  for (const [label, headers, path] of cases) {
    const res = await post(gw, path, body, headers);
    t.equal(res.status, 401, label);
    t.equal(res.json?.error.code, 'invalid_webhook_signature', label);
  }
  const signed = { 'x-hub-signature-256': await githubSignature(body) };
  const refusal = await post(gw, '/webhook/dev/gh-app', body, {
    'x-hub-signature-256': await githubSignature(body, 'not the secret'),
  });
  // Unknown names, a provider without routing and a wrong signature look the same: nothing to probe.
  for (const [label, path] of <[string, string][]>[
    ['unknown integration', '/webhook/dev/nope'],
    ['unknown environment', '/webhook/staging/gh-app'],
    ['another environment', '/webhook/prod/gh-app'],
    ['a provider without webhook routing', '/webhook/dev/stripe'],
    ['no webhook secret', '/webhook/dev/gh-nosecret'],
  ]) {
    const res = await post(gw, path, body, signed);
    t.equal(res.status, refusal.status, label);
    t.same(res.json, refusal.json, `${label}: the same body as a wrong signature`);
  }
  await sleep(300);
  t.equal(hook.received.length, 0, 'nothing reached the customer');
  t.same((await gw.call('GET', '/webhooks/deliveries?type=forward')).json.data, [], 'nothing recorded');
  t.same(
    (await gw.call('GET', '/connections/acme?provider_config_key=gh-app')).json.data.errors,
    [],
    'no connection touched',
  );
});

t.test("GitHub's own documented example signature is accepted", async (t) => {
  const { gw, hook } = await setup(t);
  // From GitHub's "Validating webhook deliveries" page: secret, payload and expected signature.
  const res = await post(gw, '/webhook/dev/gh-app', 'Hello, World!', {
    'content-type': 'text/plain',
    'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
  });
  t.equal(res.status, 202);
  await waitFor(() => hook.received.length === 1, 'the expected deliveries', 10_000);
  t.match(forwards(hook)[0], { connection_id: null, provider_config_key: 'gh-app', payload: 'Hello, World!' });
});

t.test('routed by installation id: one signed forward per matching connection, payload intact', async (t) => {
  const { gw, hook } = await setup(t);
  const event = {
    ref: 'refs/heads/main',
    installation: { id: 1001, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==' },
    repository: { full_name: 'acme/app', description: 'Ünïcödé ✓ "quotes" \\ and \u2028 line separators' },
    commits: [{ id: 'abc', added: [], removed: ['x'], big: 12345678901234, neg: -0.5, nil: null, yes: true }],
  };
  const body = JSON.stringify(event, null, 2);
  const headers = {
    'x-hub-signature-256': await githubSignature(body),
    'x-github-event': 'push',
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    'x-github-hook-id': '42',
  };
  const res = await post(gw, '/webhook/dev/gh-app', body, headers);
  t.equal(res.status, 202);
  t.match(res.json.data, { accepted: true, matched_connections: 2 });
  await waitFor(() => hook.received.length === 2, 'two forwards', 10_000);
  const got = forwards(hook);
  t.same(
    got.map((p) => p.connection_id).sort(),
    ['acme', 'acme-bis'],
    'each connection of installation 1001, not globex',
  );
  for (const forward of got) {
    t.same(forward.payload, event, 'the provider payload, unchanged');
    t.match(forward, { provider_config_key: 'gh-app', provider: 'github-app', environment: 'dev' });
    t.same(forward.provider_headers, {
      'x-github-event': 'push',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-github-hook-id': '42',
    });
  }
  t.notMatch(hook.received[0]?.body.toString() ?? '', 'sha256=', "the provider's signature is not passed on");
  t.ok(
    hook.received.every((r) => verifyWebhookSignature(r.body, r.headers, signingKey)),
    "forwards are signed with the environment's key",
  );
  t.not(got[0]?.delivery_id, got[1]?.delivery_id, 'a delivery id per forward');

  const other = JSON.stringify({ action: 'created', installation: { id: 2002 } });
  await post(gw, '/webhook/dev/gh-app', other, {
    'x-hub-signature-256': await githubSignature(other),
    'x-github-event': 'issue_comment',
  });
  await waitFor(() => hook.received.length === 3, 'the expected deliveries', 10_000);
  t.equal(forwards(hook)[2]?.connection_id, 'globex');

  // GitHub's form content type: the JSON is in the `payload` field.
  const form = `payload=${encodeURIComponent(JSON.stringify({ zen: 'Keep it logically awesome.', installation: { id: 2002 } }))}`;
  const formRes = await post(gw, '/webhook/dev/gh-app', form, {
    'content-type': 'application/x-www-form-urlencoded',
    'x-hub-signature-256': await githubSignature(form),
    'x-github-event': 'ping',
  });
  t.equal(formRes.status, 202);
  await waitFor(() => hook.received.length === 4, 'the expected deliveries', 10_000);
  t.same(forwards(hook)[3]?.payload, { zen: 'Keep it logically awesome.', installation: { id: 2002 } });
});

t.test('an unmatched payload is recorded and forwarded with no connection', async (t) => {
  const { gw, hook } = await setup(t);
  const body = JSON.stringify({ action: 'created', installation: { id: 9999 } });
  const res = await post(gw, '/webhook/dev/gh-app', body, {
    'x-hub-signature-256': await githubSignature(body),
    'x-github-event': 'installation',
  });
  t.match(res.json.data, { matched_connections: 0 });
  await waitFor(() => hook.received.length === 1, 'the expected deliveries', 10_000);
  t.match(forwards(hook)[0], {
    connection_id: null,
    provider_config_key: 'gh-app',
    payload: { installation: { id: 9999 } },
  });
  const recorded = (await gw.call('GET', '/webhooks/deliveries?type=forward')).json.data;
  t.match(recorded, [{ type: 'forward', connection_id: null, provider_config_key: 'gh-app' }]);
});

t.test('the provider gets its 202 before the customer has answered', async (t) => {
  const { gw, hook, releases, hold } = await setup(t);
  hold.on = true;
  const body = JSON.stringify({ action: 'opened', installation: { id: 2002 } });
  const res = await post(gw, '/webhook/dev/gh-app', body, {
    'x-hub-signature-256': await githubSignature(body),
    'x-github-event': 'issues',
  });
  t.equal(res.status, 202);
  await waitFor(() => hook.received.length === 1, 'the forward to be in flight', 10_000);
  t.equal(releases.length, 1, 'the customer is still holding the forward while the provider has its answer');
  releases.shift()?.();
});

t.test('an installation deleted at the provider marks its connection', async (t) => {
  const { gw, hook } = await setup(t);
  const body = JSON.stringify({ action: 'deleted', installation: { id: 2002, account: { login: 'globex' } } });
  const res = await post(gw, '/webhook/dev/gh-app', body, {
    'x-hub-signature-256': await githubSignature(body),
    'x-github-event': 'installation',
  });
  t.equal(res.status, 202);
  const connection = (await gw.call('GET', '/connections/globex?provider_config_key=gh-app')).json.data;
  t.match(connection.errors, [{ type: 'auth', code: 'installation_deleted' }]);
  t.same(
    (await gw.call('GET', '/connections/acme?provider_config_key=gh-app')).json.data.errors,
    [],
    'other installations untouched',
  );
  await waitFor(() => hook.received.length === 2, 'the auth event and the forward', 10_000);
  const payloads = hook.payloads();
  t.match(
    payloads.find((p) => p.type === 'auth'),
    { connection_id: 'globex', operation: 'refresh', success: false, error: { code: 'installation_deleted' } },
  );
  t.match(
    payloads.find((p) => p.type === 'forward'),
    { connection_id: 'globex', payload: { action: 'deleted' } },
  );
});

t.test(
  'mounted in Express under a prefix: verified on the raw bytes; a JSON body parser in front is refused clearly',
  async (t) => {
    const { gw, hook } = await setup(t);
    const app = express();
    app.use('/raw', express.raw({ type: '*/*' }), toExpress(gw.gateway));
    app.use('/portico', toExpress(gw.gateway));
    app.use('/parsed', express.json(), toExpress(gw.gateway));
    const server = await listen(app);
    t.teardown(() => server.close());
    const body = JSON.stringify({ action: 'opened', installation: { id: 2002 } }, null, 1);
    const headers = {
      'content-type': 'application/json',
      'x-hub-signature-256': await githubSignature(body),
      'x-github-event': 'issues',
    };
    const at = (prefix: string) =>
      fetch(`${server.url}${prefix}/webhook/dev/gh-app`, { method: 'POST', headers, body });
    t.equal((await at('/portico')).status, 202, 'no body parser in front');
    t.equal((await at('/raw')).status, 202, 'express.raw() keeps the bytes');
    const parsed = await at('/parsed');
    t.equal(parsed.status, 400);
    t.match((await parsed.json()).error, { code: 'invalid_request', message: /body parser/ });
    await waitFor(() => hook.received.length === 2, 'the expected deliveries', 10_000);
    t.ok(forwards(hook).every((f) => f.connection_id === 'globex'));
  },
);
