import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import t, { type Test } from 'tap';
import { listen } from '../helpers/http.js';
import { proxySetup } from './helpers.js';

function record(t: Test, name: string) {
  const events: Record<string, unknown>[] = [];
  const listener = (message: unknown) => events.push(message as Record<string, unknown>);
  subscribe(name, listener);
  t.teardown(() => unsubscribe(name, listener));
  return events;
}

t.test('retries and final answers are published on diagnostics channels, without secrets', async (t) => {
  let calls = 0;
  const s = await proxySetup(t, {
    gateway: { proxy: { retryBaseDelayMs: 1, retryMaxDelayMs: 5 } },
    respond: (_req, res) => {
      res.statusCode = calls++ === 0 ? 503 : 200;
      res.end('{}');
    },
  });
  const retries = record(t, 'portico:proxy:retry');
  const responses = record(t, 'portico:proxy:response');
  const res = await s.proxy('GET', '/v1/x?token=secret-in-query', { headers: { retries: '1' } });
  t.equal(res.status, 200);
  t.match(retries, [
    {
      environment: 'dev',
      providerConfigKey: 'fake',
      connectionId: 'c1',
      provider: 'fake-api',
      method: 'GET',
      path: '/v1/x',
      reason: '503',
      attempt: 1,
    },
  ]);
  t.match(responses, [{ path: '/v1/x', status: 200, retries: 1, refreshed: false }]);
  t.notMatch(JSON.stringify([...retries, ...responses]), /secret-in-query|sk_fake/, 'no query string, no credential');
});

t.test('an unreachable provider is published as an error', async (t) => {
  const gone = await listen(() => {});
  await gone.close();
  const s = await proxySetup(t, { baseUrl: gone.url });
  const errors = record(t, 'portico:proxy:error');
  t.equal((await s.proxy('GET', '/v1/x')).status, 502);
  t.match(errors, [{ reason: 'unreachable', code: 'ECONNREFUSED', path: '/v1/x' }]);
});
