import { createHash, createHmac } from 'node:crypto';
import t from 'tap';
import { verifyWebhookSignature } from '../../lib/client/webhooks.js';
import { devKey, prodKey, startGateway } from '../helpers/gateway.js';
import { importConnection, receiver, waitFor, withStripe } from './helpers.js';

const signingKey = 'whsk_test_0123456789abcdef0123456789';

t.test(
  'each webhook carries both signature headers, checked against an independent computation (spec 5.2)',
  async (t) => {
    const hook = await receiver();
    t.teardown(() => hook.close());
    const gw = await startGateway(t, {
      environments: [
        { name: 'dev', secretKey: devKey, webhookUrl: `${hook.url}/hooks`, webhookSigningKey: signingKey },
        { name: 'prod', secretKey: prodKey },
      ],
    });
    await withStripe(gw);
    // A non-ASCII name: the signature is over UTF-8 bytes, not characters.
    await gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'stripe',
        connection_id: 'conn-1',
        credentials: { type: 'API_KEY', apiKey: 'sk_live_secret' },
        end_user: { id: 'eu-1', display_name: 'Zoë Ørsted 日本' },
      },
    });
    const [got] = await waitFor(() => hook.received.length === 1 && hook.received, 'the auth webhook', 10_000);
    if (!got) throw new Error('unreachable');

    t.equal(got.method, 'POST');
    t.equal(got.url, '/hooks');
    t.match(got.headers['content-type'], /^application\/json/);
    // Computed here with node:crypto, not with the gateway's code.
    const hmac = createHmac('sha256', signingKey).update(got.body).digest('hex');
    const legacy = createHash('sha256')
      .update(Buffer.concat([Buffer.from(signingKey, 'utf8'), got.body]))
      .digest('hex');
    t.equal(got.headers['x-service-hmac-sha256'], hmac, 'X-Service-Hmac-Sha256 = hex HMAC-SHA256(key, raw body)');
    t.equal(got.headers['x-service-signature'], legacy, 'X-Service-Signature = hex SHA-256(key ‖ raw body)');
    t.equal(Number(got.headers['content-length']), got.body.length, 'the body is sent exactly as signed');

    const payload = JSON.parse(got.body.toString('utf8'));
    t.match(payload, {
      type: 'auth',
      operation: 'creation',
      success: true,
      connection_id: 'conn-1',
      provider_config_key: 'stripe',
      provider: 'stripe',
      environment: 'dev',
      auth_mode: 'API_KEY',
      source: 'import',
    });
    t.equal(payload.end_user.display_name, 'Zoë Ørsted 日本');
    t.match(payload.delivery_id, /^[0-9a-f-]{36}$/);
    t.notMatch(got.body.toString(), 'sk_live_secret', 'no credential in the payload');

    t.test('the SDK verifies it, timing-safe, and refuses any change', async (t) => {
      t.equal(verifyWebhookSignature(got.body, got.headers, signingKey), true, 'Buffer body, Node headers');
      t.equal(
        verifyWebhookSignature(got.body.toString('utf8'), new Headers({ 'X-Service-Hmac-Sha256': hmac }), signingKey),
        true,
        'string body, fetch Headers',
      );
      const tampered = Buffer.from(got.body.toString('utf8').replace('"success":true', '"success":false'));
      t.equal(verifyWebhookSignature(tampered, got.headers, signingKey), false, 'changed body');
      t.equal(verifyWebhookSignature(got.body, got.headers, 'whsk_some_other_key_0000000000'), false, 'other key');
      t.equal(
        verifyWebhookSignature(got.body, { 'x-service-signature': legacy }, signingKey),
        false,
        'the legacy header alone does not verify',
      );
      t.equal(
        verifyWebhookSignature(got.body, { 'x-service-hmac-sha256': 'zz' }, signingKey),
        false,
        'malformed header',
      );
      t.equal(verifyWebhookSignature(got.body, {}, signingKey), false, 'no header');
    });
  },
);

t.test('a rotated key signs the next webhooks; the old one no longer verifies', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.close());
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: hook.url },
      { name: 'prod', secretKey: prodKey },
    ],
  });
  await withStripe(gw);
  const before = await gw.call('POST', '/environment/webhook-signing-key');
  const first = before.json.data.webhook_signing_key as string;
  await importConnection(gw, 'a');
  await waitFor(() => hook.received.length === 1, 'the expected deliveries', 10_000);
  const rotated = await gw.call('POST', '/environment/webhook-signing-key');
  const second = rotated.json.data.webhook_signing_key as string;
  t.not(second, first);
  await importConnection(gw, 'b');
  await waitFor(() => hook.received.length === 2, 'the expected deliveries', 10_000);
  const [a, b] = hook.received as [(typeof hook.received)[0], (typeof hook.received)[0]];
  t.ok(verifyWebhookSignature(a.body, a.headers, first));
  t.ok(verifyWebhookSignature(b.body, b.headers, second), 'signed with the new key');
  t.notOk(verifyWebhookSignature(b.body, b.headers, first), 'not with the old one');
});
