import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { verifyWebhookSignature } from '../../lib/client/webhooks.js';
import { devKey, prodKey, startGateway } from '../helpers/gateway.js';
import { fastPolicy, importConnection, receiver, waitFor, withStripe } from './helpers.js';

t.test('configured values are the initial settings; the key is shown masked', async (t) => {
  const gw = await startGateway(t, {
    environments: [
      {
        name: 'dev',
        secretKey: devKey,
        webhookUrl: 'https://customer.example/hooks',
        webhookSecondaryUrl: 'https://backup.example/hooks',
        webhookSigningKey: 'whsk_configured_key_abcd',
      },
      { name: 'prod', secretKey: prodKey },
    ],
  });
  const res = await gw.call('GET', '/environment');
  t.equal(res.status, 200);
  t.same(res.json.data, {
    name: 'dev',
    webhook_url: 'https://customer.example/hooks',
    webhook_secondary_url: 'https://backup.example/hooks',
    webhook_signing_key: '********abcd',
    webhook_signing_key_source: 'configured',
    webhook_signing_key_created_at: null,
  });
  t.notMatch(res.text, 'whsk_configured_key', 'never the whole key');
  const prod = (await gw.call('GET', '/environment', { key: prodKey })).json.data;
  t.match(
    prod,
    { name: 'prod', webhook_url: null, webhook_secondary_url: null, webhook_signing_key_source: 'generated' },
    'each environment its own',
  );
  t.equal((await gw.call('GET', '/environment', { key: null })).status, 401, 'behind the secret key');
});

t.test('a generated key: random, not the secret key, sealed at rest, kept across restarts, rotatable', async (t) => {
  const path = join(t.testdir(), 'portico.db');
  const hook = await receiver();
  t.teardown(() => hook.close());
  const environments = [
    { name: 'dev', secretKey: devKey, webhookUrl: hook.url },
    { name: 'prod', secretKey: prodKey },
  ];

  const storage1 = createSqliteStorage({ path });
  const first = await startGateway(t, { storage: storage1, environments, webhooks: fastPolicy });
  const shown = (await first.call('GET', '/environment')).json.data;
  t.equal(shown.webhook_signing_key_source, 'generated');
  const rotated = (await first.call('POST', '/environment/webhook-signing-key')).json.data;
  const key = rotated.webhook_signing_key as string;
  t.match(key, /^whsk_[A-Za-z0-9_-]{43}$/, 'shown whole once, on rotation');
  t.not(key, devKey);
  t.equal((await first.call('GET', '/environment')).json.data.webhook_signing_key, `********${key.slice(-4)}`);
  const raw = JSON.stringify(await storage1.keyv('webhook-settings').get('dev'));
  t.notMatch(raw, key, 'the key is sealed in the store');
  t.notMatch(raw, key.slice(5, 20));
  await first.gateway.close();
  await storage1.close();

  const storage2 = createSqliteStorage({ path });
  t.teardown(() => storage2.close());
  const second = await startGateway(t, { storage: storage2, environments, webhooks: fastPolicy });
  t.equal(
    (await second.call('GET', '/environment')).json.data.webhook_signing_key,
    `********${key.slice(-4)}`,
    'the same key after a restart',
  );
  await withStripe(second);
  await importConnection(second, 'c1');
  await waitFor(() => hook.received.length === 1, 'the expected deliveries', 10_000);
  t.ok(verifyWebhookSignature(hook.received[0]!.body, hook.received[0]!.headers, key), 'webhooks are signed with it');
});

t.test('PATCH /environment sets or clears URLs; bad input changes nothing', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const gw = await startGateway(t, { webhooks: fastPolicy });
  await withStripe(gw);
  for (const [body, field] of [
    [{ webhook_url: 'ftp://x.example' }, 'webhook_url'],
    [{ webhook_url: 'not a url' }, 'webhook_url'],
    [{ colour: 'red' }, ''],
    [{}, ''],
  ] as const) {
    const res = await gw.call('PATCH', '/environment', { body });
    t.equal(res.status, 400, JSON.stringify(body));
    if (field) t.equal(res.json.error.field, field);
  }
  t.equal((await gw.call('GET', '/environment')).json.data.webhook_url, null, 'still unset');

  await importConnection(gw, 'before');
  const set = await gw.call('PATCH', '/environment', { body: { webhook_url: hook.url } });
  t.equal(set.json.data.webhook_url, hook.url);
  await importConnection(gw, 'during');
  await waitFor(() => hook.received.length === 1, 'the expected deliveries', 10_000);
  t.equal(hook.payloads()[0]?.connection_id, 'during');
  t.equal((await gw.call('PATCH', '/environment', { body: { webhook_url: null } })).json.data.webhook_url, null);
  await importConnection(gw, 'after');

  const records = (await gw.call('GET', '/webhooks/deliveries')).json.data;
  t.match(
    records.map((r: { connection_id: string; state: string; reason: string | null }) => [
      r.connection_id,
      r.state,
      r.reason,
    ]),
    [
      ['after', 'skipped', 'no_webhook_url'],
      ['during', /pending|delivered/, null],
      ['before', 'skipped', 'no_webhook_url'],
    ],
    'events with no URL to go to are recorded as skipped',
  );
  t.equal(hook.received.length, 1);
});

t.test("a connection's own webhook URL takes its events; the others keep the environment's", async (t) => {
  const envHook = await receiver();
  const ownHook = await receiver();
  t.teardown(async () => {
    await envHook.close();
    await ownHook.close();
  });
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: envHook.url },
      { name: 'prod', secretKey: prodKey },
    ],
    webhooks: fastPolicy,
  });
  await withStripe(gw);
  await importConnection(gw, 'own');
  await importConnection(gw, 'plain');
  await waitFor(() => envHook.received.length === 2, 'the expected deliveries', 10_000);

  t.equal(
    (
      await gw.call('PUT', '/connections/ghost/webhook-url?provider_config_key=stripe', {
        body: { webhook_url: ownHook.url },
      })
    ).status,
    404,
    'unknown connection',
  );
  t.equal(
    (await gw.call('PUT', '/connections/own/webhook-url?provider_config_key=stripe', { body: { webhook_url: 'nope' } }))
      .status,
    400,
  );
  t.equal(
    (await gw.call('PUT', '/connections/own/webhook-url', { body: { webhook_url: ownHook.url } })).json.error.code,
    'missing_provider_config_key',
  );
  const put = await gw.call('PUT', '/connections/own/webhook-url', {
    headers: { 'provider-config-key': 'stripe' },
    body: { webhook_url: ownHook.url },
  });
  t.equal(put.status, 200);
  t.same((await gw.call('GET', '/connections/own/webhook-url?provider_config_key=stripe')).json.data, {
    connection_id: 'own',
    provider_config_key: 'stripe',
    webhook_url: ownHook.url,
  });
  t.equal(
    (await gw.call('GET', '/connections/own/webhook-url?provider_config_key=stripe', { key: prodKey })).status,
    404,
    'not from another environment',
  );

  await importConnection(gw, 'own');
  await importConnection(gw, 'plain');
  await waitFor(
    () => ownHook.received.length === 1 && envHook.received.length === 3,
    'the expected deliveries',
    10_000,
  );
  t.match(ownHook.payloads()[0], { connection_id: 'own', operation: 'override' });
  t.equal(envHook.payloads()[2]?.connection_id, 'plain');

  await gw.call('DELETE', '/connections/own/webhook-url?provider_config_key=stripe');
  t.equal(
    (await gw.call('GET', '/connections/own/webhook-url?provider_config_key=stripe')).json.data.webhook_url,
    null,
  );
  await gw.call('PUT', '/connections/own/webhook-url?provider_config_key=stripe', {
    body: { webhook_url: ownHook.url },
  });
  await gw.call('DELETE', '/connections/own?provider_config_key=stripe');
  await waitFor(() => ownHook.received.length === 2, 'the expected deliveries', 10_000);
  t.match(
    ownHook.payloads()[1],
    { connection_id: 'own', operation: 'deletion' },
    'the deletion event still goes to its URL',
  );
  await importConnection(gw, 'own');
  t.equal(
    (await gw.call('GET', '/connections/own/webhook-url?provider_config_key=stripe')).json.data.webhook_url,
    null,
    'a deleted connection takes its URL with it',
  );
});

t.test(
  'with two environment URLs, a connection with its own URL takes one delivery number, and the history has no gap',
  async (t) => {
    const primary = await receiver();
    const secondary = await receiver();
    const own = await receiver();
    t.teardown(async () => {
      await primary.close();
      await secondary.close();
      await own.close();
    });
    const gw = await startGateway(t, {
      environments: [{ name: 'dev', secretKey: devKey, webhookUrl: primary.url, webhookSecondaryUrl: secondary.url }],
      webhooks: fastPolicy,
    });
    await withStripe(gw);
    await importConnection(gw, 'own');
    await gw.call('PUT', '/connections/own/webhook-url?provider_config_key=stripe', { body: { webhook_url: own.url } });
    await importConnection(gw, 'own');
    await importConnection(gw, 'plain');
    await waitFor(
      () => primary.received.length === 2 && secondary.received.length === 2 && own.received.length === 1,
      'the expected deliveries',
      10_000,
    );
    t.same(
      [primary, secondary, own].map((hook) => hook.payloads().map((p) => p.connection_id)),
      [['own', 'plain'], ['own', 'plain'], ['own']],
      "the connection's own URL replaces both of the environment's",
    );
    const kv = gw.storage.keyv<{ target: string }>('webhook-deliveries');
    const records = await kv.getMany([1, 2, 3, 4, 5, 6].map((seq) => `dev\u001f${seq}`));
    t.same(
      records.map((r) => r?.target ?? null),
      ['primary', 'secondary', 'connection', 'primary', 'secondary', null],
      'numbered one after another: no number reserved and left unused',
    );
  },
);
