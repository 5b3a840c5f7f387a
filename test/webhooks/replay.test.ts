import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import t from 'tap';
import { devKey, prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { fastPolicy, importConnection, receiver, waitFor, withStripe } from './helpers.js';

const signingKey = 'whsk_replay_test_0123456789abcdef';
const hmac = (body: string | Buffer) => createHmac('sha256', signingKey).update(body).digest('hex');

async function gatewayFor(t: Parameters<Parameters<typeof import('tap').test>[0]>[0], url: string | null) {
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookSigningKey: signingKey, ...(url ? { webhookUrl: url } : {}) },
      { name: 'prod', secretKey: prodKey },
    ],
    webhooks: { ...fastPolicy, retries: 0 },
  });
  await withStripe(gw);
  return gw;
}

const deliveryOf = async (gw: TestGateway, id: string) =>
  (await gw.call('GET', `/webhooks/deliveries?delivery_id=${id}`)).json.data[0];

t.test(
  'POST /webhooks/deliveries/:id/retry sends a failed delivery again: same body, new attempt appended',
  async (t) => {
    let up = false;
    const hook = await receiver((_req, res) => {
      res.statusCode = up ? 200 : 503;
      res.end();
    });
    t.teardown(() => hook.close());
    const gw = await gatewayFor(t, hook.url);
    await importConnection(gw, 'c1');
    const failed = await waitFor(
      async () => {
        const list = (await gw.call('GET', '/webhooks/deliveries')).json.data;
        return list[0]?.state === 'failed' && list[0];
      },
      'the delivery to fail',
      15_000,
    );
    t.equal(hook.received.length, 1, 'no retries configured: one attempt');

    up = true;
    const res = await gw.call('POST', `/webhooks/deliveries/${failed.delivery_id}/retry`);
    t.equal(res.status, 202);
    t.match(res.json.data, [{ delivery_id: failed.delivery_id, state: 'pending', reason: null }]);
    const delivered = await waitFor(
      async () => {
        const record = await deliveryOf(gw, failed.delivery_id);
        return record.state === 'delivered' && record;
      },
      'the re-send to be delivered',
      15_000,
    );
    t.same(
      delivered.attempts.map((a: { attempt: number; status: number }) => [a.attempt, a.status]),
      [
        [1, 503],
        [2, 200],
      ],
      'history kept, the new attempt numbered on',
    );
    t.equal(hook.received.length, 2);
    t.same(hook.received[1]?.body, hook.received[0]?.body, 'the very same body');
    t.equal(hook.received[1]?.headers['x-service-hmac-sha256'], hmac(hook.received[1]?.body as Buffer), 'signed');
  },
);

t.test('a re-send is refused while the delivery is being attempted, and for unknown or malformed ids', async (t) => {
  const held: ServerResponse[] = [];
  const hook = await receiver((_req, res) => {
    held.push(res);
  });
  t.teardown(() => {
    for (const res of held) res.end();
    return hook.close();
  });
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: hook.url },
      { name: 'prod', secretKey: prodKey },
    ],
    webhooks: { ...fastPolicy, timeoutMs: 10_000 },
  });
  await withStripe(gw);
  await importConnection(gw, 'c1');
  await waitFor(() => held.length === 1, 'the attempt to be under way', 15_000);
  const [record] = (await gw.call('GET', '/webhooks/deliveries')).json.data;
  const busy = await gw.call('POST', `/webhooks/deliveries/${record.delivery_id}/retry`);
  t.equal(busy.status, 409);
  t.equal(busy.json.error.code, 'delivery_pending');
  const unknown = await gw.call('POST', '/webhooks/deliveries/0b6f5c1e-0000-4000-8000-000000000000/retry');
  t.equal(unknown.status, 404);
  t.equal(unknown.json.error.code, 'unknown_delivery');
  const malformed = await gw.call('POST', '/webhooks/deliveries/not-an-id/retry');
  t.equal(malformed.status, 400);
  t.equal(held.length, 1, 'nothing was sent again');
});

t.test(
  'GET /webhooks/events: every event in order, paged by `after`, with the bodies and signatures deliveries carry',
  async (t) => {
    const hook = await receiver();
    t.teardown(() => hook.close());
    const gw = await gatewayFor(t, hook.url);
    for (const id of ['c1', 'c2', 'c3']) await importConnection(gw, id);
    await gw.gateway.webhooks.send('dev', {
      type: 'records',
      connection_id: 'c1',
      provider_config_key: 'stripe',
      model: 'Invoice',
      count: 2,
      cursor: null,
      latest_cursor: 'Y3Vyc29y',
      modified_after: new Date().toISOString(),
    });
    await waitFor(() => hook.received.length === 4, 'four deliveries', 15_000);

    const first = await gw.call('GET', '/webhooks/events?limit=3');
    t.equal(first.status, 200);
    t.same(
      first.json.data.map((e: { seq: number }) => e.seq),
      [1, 2, 3],
    );
    t.match(first.json, { next_after: 3, has_more: true });
    const rest = await gw.call('GET', `/webhooks/events?after=${first.json.next_after}&limit=3`);
    t.same(
      rest.json.data.map((e: { seq: number }) => e.seq),
      [4],
    );
    t.match(rest.json, { next_after: 4, has_more: false });
    const events = [...first.json.data, ...rest.json.data];
    t.same(
      events.map((e: { type: string; connection_id: string }) => [e.type, e.connection_id]),
      [
        ['auth', 'c1'],
        ['auth', 'c2'],
        ['auth', 'c3'],
        ['records', 'c1'],
      ],
      'in the order accepted',
    );
    const sent = new Map(
      hook.received.map((r) => [JSON.parse(r.body.toString('utf8')).delivery_id, r.body.toString('utf8')]),
    );
    for (const e of events) {
      t.equal(e.body, sent.get(e.delivery_id), `event ${e.seq}: the body the receiver got, byte for byte`);
      t.equal(e.signatures['X-Service-Hmac-Sha256'], hmac(e.body), `event ${e.seq}: verifiable with the signing key`);
    }
    t.equal(JSON.parse(events[3].body).latest_cursor, 'Y3Vyc29y', 'a records event carries the cursor it announces');
    const empty = await gw.call('GET', '/webhooks/events?after=4');
    t.same(empty.json, { data: [], next_after: 4, has_more: false });
    const bad = await gw.call('GET', '/webhooks/events?limit=501');
    t.equal(bad.status, 400);
    t.equal(bad.json.error.code, 'invalid_request');
  },
);

t.test('the feed has the events a customer without a webhook URL never received', async (t) => {
  const gw = await gatewayFor(t, null);
  await importConnection(gw, 'c1');
  const feed = await gw.call('GET', '/webhooks/events');
  t.match(feed.json.data, [{ seq: 1, type: 'auth', connection_id: 'c1' }]);
  const record = (await gw.call('GET', '/webhooks/deliveries')).json.data[0];
  t.match(record, { state: 'skipped' });
  const retry = await gw.call('POST', `/webhooks/deliveries/${record.delivery_id}/retry`);
  t.equal(retry.status, 409);
  t.equal(retry.json.error.code, 'delivery_not_sendable');
});
