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

t.test(
  'a call publishes one event at start and the same object, completed, at the end; its answer one more',
  async (t) => {
    const s = await proxySetup(t, {
      respond: (_req, res) => {
        res.statusCode = 201;
        res.end('{}');
      },
    });
    const starts = record(t, 'portico:proxy:call:start');
    const ends = record(t, 'portico:proxy:call:end');
    const responses = record(t, 'portico:proxy:response');
    const res = await s.proxy('POST', '/v1/items?token=secret-in-query', {
      headers: { 'x-request-id': 'req-42', 'content-type': 'application/json' },
      body: '{}',
    });
    t.equal(res.status, 201);
    // The end is published when the gateway's response closes, which may come just after the caller has it all.
    for (const deadline = Date.now() + 2000; ends.length === 0 && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const subject = {
      environment: 'dev',
      providerConfigKey: 'fake',
      connectionId: 'c1',
      provider: 'fake-api',
      method: 'POST',
      host: new URL(s.provider.url).host,
      path: '/v1/items',
    };
    t.equal(starts.length, 1, 'one start');
    t.equal(ends.length, 1, 'one end');
    t.equal(ends[0], starts[0], 'the end is the start event, completed');
    const call = ends[0] as Record<string, unknown>;
    t.strictSame(
      Object.keys(call).sort(),
      [...Object.keys(subject), 'requestId', 'startedAt', 'status', 'durationMs'].sort(),
    );
    t.match(call, { ...subject, requestId: 'req-42', status: 201 });
    t.ok((call.durationMs as number) > 0 && typeof call.startedAt === 'number', 'timed');
    t.equal(responses.length, 1, 'one answer');
    const answer = responses[0] as Record<string, unknown>;
    t.strictSame(
      Object.keys(answer).sort(),
      [...Object.keys(subject), 'status', 'retries', 'refreshed', 'durationMs'].sort(),
    );
    t.match(answer, { ...subject, status: 201, retries: 0, refreshed: false });
    t.ok((answer.durationMs as number) > 0, 'upstream time measured');
    t.notMatch(JSON.stringify([call, answer]), /secret-in-query|sk_fake/, 'no query string, no credential');
  },
);
