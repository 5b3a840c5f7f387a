import t from 'tap';
import { devKey, startGateway } from '../helpers/gateway.js';

t.test('the secret key guards every API route', async (t) => {
  const gw = await startGateway(t);
  for (const path of ['/providers', '/providers/github', '/integrations', '/connections', '/connections/x']) {
    const none = await gw.call('GET', path, { key: null });
    t.equal(none.status, 401, `${path} without a key`);
    t.equal(none.json.error.code, 'unauthorized');
    t.match(none.headers.get('content-type'), /application\/json/);
    const wrong = await gw.call('GET', path, { key: devKey.slice(0, -1) + 'X' });
    t.equal(wrong.status, 401, `${path} with a wrong key`);
  }
  const basic = await gw.call('GET', '/providers', {
    key: null,
    headers: { authorization: `Basic ${Buffer.from(devKey).toString('base64')}` },
  });
  t.equal(basic.status, 401, 'only the Bearer scheme is accepted');
  const ok = await gw.call('GET', '/providers');
  t.equal(ok.status, 200);
  t.ok(ok.headers.get('x-request-id'), 'each answer carries a request id');
});

t.test('public routes need no key', async (t) => {
  const gw = await startGateway(t);
  t.equal((await gw.call('GET', '/health', { key: null })).status, 200);
  t.equal((await gw.call('GET', '/openapi.json', { key: null })).status, 200);
});

t.test('logs never carry the secret key or credentials', async (t) => {
  const lines: string[] = [];
  const { createLogger } = await import('../../lib/http/logger.js');
  const gw = await startGateway(t, { logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }) });
  await gw.call('POST', '/integrations', { body: { unique_key: 'stripe', provider: 'stripe' } });
  await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'stripe',
      connection_id: 'c',
      credentials: { type: 'API_KEY', apiKey: 'sk_live_topsecret' },
    },
  });
  await gw.call('GET', '/connections/c?provider_config_key=stripe');
  t.ok(lines.length >= 3, 'one line per request');
  const all = lines.join('\n');
  t.notMatch(all, devKey);
  t.notMatch(all, 'sk_live_topsecret');
  const parsed = JSON.parse(lines[0] as string);
  t.equal(parsed.msg, 'request');
  t.ok(parsed.request_id);
});

t.test('the request log line carries the status the caller got, errors included', async (t) => {
  const lines: string[] = [];
  const { createLogger } = await import('../../lib/http/logger.js');
  const gw = await startGateway(t, { logger: createLogger({ level: 'info', write: (l) => lines.push(l) }) });
  await gw.call('GET', '/providers', { key: null });
  await gw.call('GET', '/providers/nope');
  const statuses = lines
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === 'request')
    .map((l) => l.status);
  t.same(statuses, [401, 404]);
});
