import type { ServerResponse } from 'node:http';
import t from 'tap';
import { announcedWait, backoff, waitFromValue } from '../../lib/proxy/retry.js';
import type { Received } from '../helpers/http.js';
import { proxySetup } from './helpers.js';

const fast = { proxy: { retryBaseDelayMs: 5, retryMaxDelayMs: 40, retryMaxWaitMs: 5_000 } };

/** A provider answering with each scripted reply in turn, then 200. */
function scripted(replies: ((req: Received, res: ServerResponse) => void)[]) {
  let n = 0;
  const times: number[] = [];
  return {
    times,
    respond: (req: Received, res: ServerResponse) => {
      times.push(Date.now());
      const reply = replies[n++];
      if (reply) return reply(req, res);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, body: req.body.toString() }));
    },
  };
}

const status =
  (code: number, headers: Record<string, string> = {}, body = '{"error":"busy"}') =>
  (_req: Received, res: ServerResponse) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };

t.test('429 with Retry-After is retried after the announced wait', async (t) => {
  const script = scripted([status(429, { 'retry-after': '1' })]);
  const s = await proxySetup(t, { respond: script.respond, gateway: fast });
  const res = await s.proxy('GET', '/v1/x', { headers: { retries: '2' } });
  t.equal(res.status, 200);
  t.equal(s.provider.received.length, 2);
  t.ok(
    (script.times[1] as number) - (script.times[0] as number) >= 950,
    'the second try waited the second Retry-After asked for',
  );
});

t.test('a rate-limit reset header named by the catalog is honoured', async (t) => {
  const reset = () => String(Math.ceil(Date.now() / 1000) + 1);
  const script = scripted([
    (_req, res) => status(429, { 'x-ratelimit-reset': reset(), 'x-ratelimit-remaining': '0' })(_req, res),
  ]);
  const s = await proxySetup(t, {
    respond: script.respond,
    gateway: fast,
    proxy: { retry_after_headers: ['x-ratelimit-reset'] },
  });
  const res = await s.proxy('GET', '/v1/x', { headers: { retries: '1' } });
  t.equal(res.status, 200);
  const resetAt = Math.ceil((script.times[0] as number) / 1000) * 1000 + 1000;
  t.ok((script.times[1] as number) >= resetAt - 50, 'the retry came once the announced reset time had passed');
});

t.test('5xx and network errors are retried with backoff; the body is sent again', async (t) => {
  const script = scripted([
    status(503),
    (_req, res) => {
      res.socket?.destroy();
    },
    status(500),
  ]);
  const s = await proxySetup(t, { respond: script.respond, gateway: fast });
  const res = await s.proxy('PUT', '/v1/x', {
    headers: { retries: '3', 'content-type': 'application/json' },
    body: '{"v":1}',
  });
  t.equal(res.status, 200);
  t.equal(s.provider.received.length, 4);
  t.same(
    s.provider.received.map((r) => r.body.toString()),
    ['{"v":1}', '{"v":1}', '{"v":1}', '{"v":1}'],
    'every try carried the same body',
  );
});

t.test("when retries run out, the provider's throttling passes through", async (t) => {
  const script = scripted(
    [0, 1, 2].map(() => status(429, { 'retry-after': '0', 'x-limit': 'hit' }, '{"error":"slow down"}')),
  );
  const s = await proxySetup(t, { respond: script.respond, gateway: fast });
  const res = await s.proxy('GET', '/v1/x', { headers: { retries: '2' } });
  t.equal(res.status, 429);
  t.equal(res.body.toString(), '{"error":"slow down"}');
  t.equal(res.headers['x-limit'], 'hit');
  t.equal(s.provider.received.length, 3, 'one try and two retries');
});

t.test('a wait longer than the gateway allows is not waited for', async (t) => {
  const script = scripted([status(429, { 'retry-after': '3600' })]);
  const s = await proxySetup(t, { respond: script.respond, gateway: fast });
  const res = await s.proxy('GET', '/v1/x', { headers: { retries: '5' } });
  t.equal(res.status, 429);
  t.equal(res.headers['retry-after'], '3600', 'the caller sees when to come back');
  t.equal(s.provider.received.length, 1);
});

t.test('POST and PATCH are not retried; nothing is retried without Retries', async (t) => {
  const script = scripted([status(503), status(503), status(503)]);
  const s = await proxySetup(t, { respond: script.respond, gateway: fast });
  t.equal((await s.proxy('POST', '/v1/x', { headers: { retries: '3' }, body: '{}' })).status, 503);
  t.equal((await s.proxy('PATCH', '/v1/x', { headers: { retries: '3' }, body: '{}' })).status, 503);
  t.equal((await s.proxy('GET', '/v1/x')).status, 503);
  t.equal(s.provider.received.length, 3, 'one request each');
});

t.test('the programmatic API retries the same way', async (t) => {
  const script = scripted([status(502), status(504)]);
  const s = await proxySetup(t, { respond: script.respond, gateway: fast });
  const res = await s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/v1/x',
    retries: 2,
  });
  t.equal(res.status, 200);
  t.same(res.body, { ok: true, body: '' });
  t.equal(s.provider.received.length, 3);
});

t.test('wait and backoff arithmetic', async (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.equal(waitFromValue('30', now), 30_000, 'seconds');
  t.equal(waitFromValue('1.5', now), 1_500, 'fractional seconds');
  t.equal(waitFromValue(String(now / 1000 + 20), now), 20_000, 'epoch seconds');
  t.equal(waitFromValue(String(now + 5_000), now), 5_000, 'epoch milliseconds');
  t.equal(waitFromValue('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000, 'HTTP date');
  t.equal(waitFromValue('soon', now), undefined);
  t.equal(announcedWait({ 'x-rate-limit-reset': '7' }, ['x-rate-limit-reset'], now), 7_000);
  t.equal(
    announcedWait({ 'retry-after': '2', 'x-rate-limit-reset': '7' }, ['x-rate-limit-reset'], now),
    2_000,
    'Retry-After first',
  );
  t.equal(
    backoff(0, 100, 10_000, () => 0),
    50,
  );
  t.equal(
    backoff(3, 100, 10_000, () => 1),
    800,
  );
  t.equal(
    backoff(20, 100, 10_000, () => 1),
    10_000,
    'capped',
  );
});
