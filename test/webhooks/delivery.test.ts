import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { devKey, prodKey, startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { fastPolicy, importConnection, receiver, waitFor, withStripe } from './helpers.js';

type Hook = Awaited<ReturnType<typeof receiver>>;

async function gatewayFor(
  t: Parameters<Parameters<typeof import('tap').test>[0]>[0],
  url: string,
  webhooks: Record<string, number> = fastPolicy,
  secondary?: string,
) {
  const gw = await startGateway(t, {
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: url, ...(secondary ? { webhookSecondaryUrl: secondary } : {}) },
      { name: 'prod', secretKey: prodKey },
    ],
    webhooks,
  });
  await withStripe(gw);
  return gw;
}

const deliveries = async (gw: Awaited<ReturnType<typeof gatewayFor>>, query = '') =>
  (await gw.call('GET', `/webhooks/deliveries${query}`)).json;
const settled = (gw: Awaited<ReturnType<typeof gatewayFor>>) =>
  waitFor(
    async () => {
      const list = await deliveries(gw);
      return list.data.length > 0 && list.data.every((d: { state: string }) => d.state !== 'pending') && list;
    },
    'deliveries to settle',
    15_000,
  );

t.test('a failing receiver (5xx) gets 3 attempts in all, with growing pauses, each recorded', async (t) => {
  const hook = await receiver((_req, res) => {
    res.statusCode = 500;
    res.end('down');
  });
  t.teardown(() => hook.close());
  const gw = await gatewayFor(t, hook.url);
  await importConnection(gw, 'c1');
  const list = await settled(gw);
  await sleep(400); // well past any further backoff: a fourth attempt would have come
  t.equal(hook.received.length, 3, '1 attempt + 2 retries');
  const [a1, a2, a3] = hook.arrivals as [number, number, number];
  t.ok(a2 - a1 >= 50, 'first pause ≥ backoffMs');
  t.ok(a3 - a2 >= 100, 'second pause ≥ backoffMs × factor');
  const ids = hook.payloads().map((p) => p.delivery_id);
  t.equal(new Set(ids).size, 1, 'every attempt carries the same delivery id');
  const [record] = list.data;
  t.match(record, {
    type: 'auth',
    connection_id: 'c1',
    provider_config_key: 'stripe',
    target: 'primary',
    url: hook.url,
    state: 'failed',
    reason: 'attempts_exhausted',
    delivery_id: ids[0],
  });
  t.same(
    record.attempts.map((a: { attempt: number; status: number; error: string }) => [a.attempt, a.status, a.error]),
    [
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 500, 'HTTP 500'],
    ],
  );
  t.same(
    record.attempts.map((a: { retry_in_ms: number | null }) => a.retry_in_ms),
    [50, 100, null],
  );
  t.ok(
    record.attempts.every(
      (a: { duration_ms: number; at: string }) => a.duration_ms >= 0 && !Number.isNaN(Date.parse(a.at)),
    ),
    'duration and time of each attempt',
  );
});

t.test('an attempt that outlasts the timeout is cut and retried', async (t) => {
  const hanging: ServerResponse[] = [];
  const hook = await receiver((_req, res, index) => {
    if (index === 0)
      hanging.push(res); // never answers
    else res.end('ok');
  });
  t.teardown(async () => {
    for (const res of hanging) res.destroy();
    await hook.close();
  });
  const gw = await gatewayFor(t, hook.url, { ...fastPolicy, timeoutMs: 300 });
  await importConnection(gw, 'c1');
  const list = await settled(gw);
  t.equal(hook.received.length, 2);
  const [record] = list.data;
  t.equal(record.state, 'delivered');
  t.match(record.attempts[0], { attempt: 1, status: null, error: 'timeout' });
  t.ok(record.attempts[0].duration_ms >= 290, `cut at the timeout (${record.attempts[0].duration_ms} ms)`);
  t.match(record.attempts[1], { attempt: 2, status: 200, error: null });
});

t.test('429 with Retry-After: the next attempt waits as long as asked', async (t) => {
  const hook = await receiver((_req, res, index) => {
    if (index === 0) {
      res.statusCode = 429;
      res.setHeader('retry-after', '1');
      res.end();
    } else res.end('ok');
  });
  t.teardown(() => hook.close());
  const gw = await gatewayFor(t, hook.url);
  await importConnection(gw, 'c1');
  const list = await settled(gw);
  t.equal(hook.received.length, 2);
  const [a1, a2] = hook.arrivals as [number, number];
  t.ok(a2 - a1 >= 1000, `waited ${a2 - a1} ms for Retry-After: 1 (backoff alone is 50 ms)`);
  t.match(list.data[0], { state: 'delivered', attempts: [{ status: 429, retry_in_ms: 1000 }, { status: 200 }] });
});

t.test('a 4xx answer is final: no retry', async (t) => {
  const hook = await receiver((_req, res) => {
    res.statusCode = 400;
    res.end('bad');
  });
  t.teardown(() => hook.close());
  const gw = await gatewayFor(t, hook.url);
  await importConnection(gw, 'c1');
  const list = await settled(gw);
  await sleep(400);
  t.equal(hook.received.length, 1, 'one attempt only');
  t.match(list.data[0], {
    state: 'failed',
    reason: 'client_error',
    attempts: [{ attempt: 1, status: 400, error: 'HTTP 400', retry_in_ms: null }],
  });
});

t.test('network errors are retried and recorded', async (t) => {
  const closed = await listen((_req, res) => res.end());
  const url = closed.url;
  await closed.close(); // nothing listens there now
  const gw = await gatewayFor(t, url);
  await importConnection(gw, 'c1');
  const list = await settled(gw);
  t.match(list.data[0], { state: 'failed', reason: 'attempts_exhausted' });
  t.same(
    list.data[0].attempts.map((a: { status: null; error: string }) => [a.status, a.error]),
    [
      [null, 'ECONNREFUSED'],
      [null, 'ECONNREFUSED'],
      [null, 'ECONNREFUSED'],
    ],
  );
});

t.test('the secondary URL gets the same event; each URL has its own record', async (t) => {
  const primary = await receiver();
  const secondary = await receiver();
  t.teardown(async () => {
    await primary.close();
    await secondary.close();
  });
  const gw = await gatewayFor(t, primary.url, fastPolicy, secondary.url);
  await importConnection(gw, 'c1');
  const list = await settled(gw);
  t.equal(primary.received.length, 1);
  t.equal(secondary.received.length, 1);
  t.same(primary.received[0]?.body, secondary.received[0]?.body, 'byte for byte');
  t.same(list.data.map((d: { target: string }) => d.target).sort(), ['primary', 'secondary']);
});

t.test('deliveries: filters and pages, newest first', async (t) => {
  const hook: Hook = await receiver();
  t.teardown(() => hook.close());
  const gw = await gatewayFor(t, hook.url);
  for (const id of ['a', 'b', 'c']) await importConnection(gw, id);
  await importConnection(gw, 'a'); // an override
  await gw.gateway.webhooks.send('dev', {
    type: 'records',
    connection_id: 'b',
    provider_config_key: 'stripe',
    model: 'Invoice',
    count: 3,
    cursor: null,
    modified_after: '2026-01-01T00:00:00.000Z',
  });
  await settled(gw);
  const all = await deliveries(gw);
  t.same(
    all.data.map((d: { connection_id: string; type: string }) => `${d.type}:${d.connection_id}`),
    ['records:b', 'auth:a', 'auth:c', 'auth:b', 'auth:a'],
  );
  t.same((await deliveries(gw, '?connection_id=a')).data.length, 2);
  t.same(
    (await deliveries(gw, '?type=records')).data.map((d: { connection_id: string }) => d.connection_id),
    ['b'],
  );
  const page1 = await deliveries(gw, '?limit=2');
  t.equal(page1.data.length, 2);
  const page2 = await deliveries(gw, `?limit=2&cursor=${page1.next_cursor}`);
  const page3 = await deliveries(gw, `?limit=2&cursor=${page2.next_cursor}`);
  t.same(
    [...page1.data, ...page2.data, ...page3.data].map((d: { delivery_id: string }) => d.delivery_id),
    all.data.map((d: { delivery_id: string }) => d.delivery_id),
  );
  t.equal(page3.next_cursor, null);
  t.equal((await gw.call('GET', '/webhooks/deliveries?type=nope')).status, 400);
  t.equal((await gw.call('GET', '/webhooks/deliveries?cursor=garbage')).status, 400);
  t.same(
    (await gw.call('GET', '/webhooks/deliveries', { key: prodKey })).json.data,
    [],
    'another environment sees none',
  );
});
