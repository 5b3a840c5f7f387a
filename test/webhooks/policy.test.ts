import t from 'tap';
import { backoffDelay, decide, defaultDeliveryPolicy, parseRetryAfter } from '../../lib/webhooks/index.js';
import { startGateway } from '../helpers/gateway.js';

t.test("the default policy is the spec's: 20 s per attempt, 2 retries (3 attempts)", async (t) => {
  t.equal(defaultDeliveryPolicy.timeoutMs, 20_000);
  t.equal(defaultDeliveryPolicy.retries, 2);
  const failing = { kind: 'response', status: 503, retryAfterMs: null } as const;
  t.equal(decide(defaultDeliveryPolicy, 1, failing).kind, 'retry', 'after attempt 1');
  t.equal(decide(defaultDeliveryPolicy, 2, failing).kind, 'retry', 'after attempt 2');
  t.same(
    decide(defaultDeliveryPolicy, 3, failing),
    { kind: 'failed', reason: 'attempts_exhausted' },
    'attempt 3 is the last',
  );
  t.ok(Object.isFrozen(defaultDeliveryPolicy), 'nobody changes the defaults by accident');
});

t.test('backoff grows between retries, jitter only adds', async (t) => {
  const p = defaultDeliveryPolicy;
  t.equal(
    backoffDelay(p, 1, () => 0),
    5_000,
  );
  t.equal(
    backoffDelay(p, 2, () => 0),
    30_000,
  );
  t.equal(
    backoffDelay(p, 1, () => 1),
    6_000,
    'at most +20%',
  );
});

t.test('what is retried and what is not', async (t) => {
  const p = { ...defaultDeliveryPolicy, jitter: 0 };
  const response = (status: number, retryAfterMs: number | null = null) =>
    ({ kind: 'response', status, retryAfterMs }) as const;
  t.same(decide(p, 1, response(200)), { kind: 'delivered' });
  t.same(decide(p, 1, response(204)), { kind: 'delivered' });
  t.same(decide(p, 1, response(500)), { kind: 'retry', delayMs: 5_000 });
  t.same(decide(p, 1, { kind: 'timeout' }), { kind: 'retry', delayMs: 5_000 });
  t.same(decide(p, 1, { kind: 'network', message: 'ECONNREFUSED' }), { kind: 'retry', delayMs: 5_000 });
  t.same(decide(p, 1, response(429)), { kind: 'retry', delayMs: 5_000 }, '429 without Retry-After: backoff');
  t.same(decide(p, 1, response(429, 12_000)), { kind: 'retry', delayMs: 12_000 }, '429 with Retry-After: as asked');
  t.same(decide(p, 1, response(429, 10 * 3_600_000)), { kind: 'retry', delayMs: 3_600_000 }, 'capped at an hour');
  for (const status of [400, 401, 403, 404, 410, 422]) {
    t.same(decide(p, 1, response(status)), { kind: 'failed', reason: 'client_error' }, `${status} is not retried`);
  }
  t.same(decide(p, 1, response(301)), { kind: 'failed', reason: 'redirect' }, 'redirects are not followed');
});

t.test('Retry-After in seconds or as an HTTP date', async (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.equal(parseRetryAfter('7', now), 7_000);
  t.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  t.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0, 'a date in the past: now');
  t.equal(parseRetryAfter('soon', now), null);
  t.equal(parseRetryAfter(null, now), null);
});

t.test("a gateway without webhook options delivers with the spec's policy; options shorten it", async (t) => {
  const plain = await startGateway(t);
  t.match(plain.gateway.webhooks.policy, { timeoutMs: 20_000, retries: 2 });
  const fast = await startGateway(t, { webhooks: { timeoutMs: 300, retries: 1 } });
  t.match(fast.gateway.webhooks.policy, { timeoutMs: 300, retries: 1, backoffMs: 5_000 });
  await t.rejects(startGateway(t, { webhooks: { retries: -1 } }), /webhooks\.retries/);
});
