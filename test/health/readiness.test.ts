import t from 'tap';
import { startGateway } from '../helpers/gateway.js';

t.test('GET /health/ready reports the store and every registered check', async (t) => {
  const gw = await startGateway(t);
  const ready = await gw.call('GET', '/health/ready', { key: null });
  t.equal(ready.status, 200, 'no secret key needed, ready');
  t.equal(ready.json.status, 'ready');
  t.equal(ready.json.checks.store.ok, true, 'the store answered');
  t.match(ready.json.checks.webhooks, { ok: true, detail: /0 waiting/ }, 'the webhook queue answered');
  t.match(ready.json.checks.scripts, { ok: true, detail: /waiting/ }, 'the scripts queue answered');

  let workerUp = true;
  gw.gateway.health.register('worker', () =>
    workerUp ? { ok: true } : { ok: false, detail: 'the worker pool is down' },
  );
  t.equal((await gw.call('GET', '/health/ready', { key: null })).status, 200);
  workerUp = false;
  const down = await gw.call('GET', '/health/ready', { key: null });
  t.equal(down.status, 503, 'one failing check: not ready');
  t.equal(down.json.status, 'unavailable');
  t.same(down.json.checks.worker, {
    ok: false,
    detail: 'the worker pool is down',
    duration_ms: down.json.checks.worker.duration_ms,
  });
  t.ok(down.headers.get('retry-after'), 'with Retry-After');
  t.equal((await gw.call('GET', '/health', { key: null })).status, 200, 'liveness is not readiness');

  gw.gateway.health.register('worker', () => new Promise(() => {}));
  const started = performance.now();
  const hung = await gw.call('GET', '/health/ready', { key: null });
  t.equal(hung.status, 503, 'a check that never answers counts as failed');
  t.match(hung.json.checks.worker.detail, /no answer within/);
  t.ok(performance.now() - started < 10_000, 'the route answers anyway');

  gw.gateway.health.register('worker', () => {
    throw new Error('secret internals');
  });
  const thrown = await gw.call('GET', '/health/ready', { key: null });
  t.equal(thrown.status, 503);
  t.notMatch(thrown.text, /secret internals/, 'a failing check does not leak its error');
});
