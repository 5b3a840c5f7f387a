import t from 'tap';
import { createLogger } from '../../lib/http/logger.js';
import { devKey } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { proxySetup, send } from '../proxy/helpers.js';

/*
 * `gateway.callback()` serves `/proxy/*` on its own lane, without Koa's context (lib/http/lane.ts);
 * `gateway.app` is the same stack through Koa. A caller must not be able to tell them apart:
 * same statuses, error bodies, headers and request log lines.
 */
t.test('a proxied call answers the same on the lane as through Koa', async (t) => {
  const lines: string[] = [];
  const setup = await proxySetup(t, {
    gateway: { logger: createLogger({ level: 'info', write: (line) => lines.push(line) }) },
  });
  const koa = await listen(setup.gw.gateway.app.callback());
  t.teardown(() => koa.close());

  const control = { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' };
  const cases: { name: string; method: string; path: string; headers: Record<string, string>; status: number }[] = [
    { name: 'a forwarded call', method: 'GET', path: '/proxy/items?page=2', headers: control, status: 200 },
    { name: 'a forwarded HEAD', method: 'HEAD', path: '/proxy/items', headers: control, status: 200 },
    {
      name: 'no secret key',
      method: 'GET',
      path: '/proxy/items',
      headers: { ...control, authorization: '' },
      status: 401,
    },
    {
      name: 'a wrong secret key',
      method: 'GET',
      path: '/proxy/items',
      headers: { ...control, authorization: 'Bearer sk_nope_0123456789abcdef' },
      status: 401,
    },
    {
      name: 'no Provider-Config-Key',
      method: 'POST',
      path: '/proxy/items',
      headers: { authorization: control.authorization, 'connection-id': 'c1' },
      status: 400,
    },
    {
      name: 'an unknown connection',
      method: 'GET',
      path: '/proxy/items',
      headers: { ...control, 'connection-id': 'nobody' },
      status: 404,
    },
    {
      name: 'an unknown connection, HEAD',
      method: 'HEAD',
      path: '/proxy/items',
      headers: { ...control, 'connection-id': 'nobody' },
      status: 404,
    },
    { name: 'a path climbing out', method: 'GET', path: '/proxy/a/%2e%2e/%2e%2e/x', headers: control, status: 400 },
    {
      name: 'a bad Retries header',
      method: 'GET',
      path: '/proxy/items',
      headers: { ...control, retries: 'many' },
      status: 400,
    },
  ];

  const compared = ['content-type', 'content-length', 'portico-error', 'retry-after'];
  for (const c of cases) {
    const lane = await send(setup.gw.url, c.method, c.path, c.headers);
    const viaKoa = await send(koa.url, c.method, c.path, c.headers);
    t.equal(lane.status, c.status, `${c.name}: the lane answers ${c.status}`);
    t.equal(viaKoa.status, lane.status, `${c.name}: Koa answers the same status`);
    t.equal(lane.body.toString(), viaKoa.body.toString(), `${c.name}: the same body`);
    for (const header of compared)
      t.equal(lane.headers[header], viaKoa.headers[header], `${c.name}: the same ${header}`);
    if (c.status >= 400 && c.method !== 'HEAD') {
      t.match(lane.json, { error: { code: String, message: String } }, `${c.name}: the one error shape`);
      t.equal(lane.headers['portico-error'], lane.json.error.code, `${c.name}: the code in Portico-Error`);
    }
    if (c.method === 'HEAD') t.equal(lane.body.length, 0, `${c.name}: no body for HEAD`);
    for (const answer of [lane, viaKoa]) {
      const id = answer.headers['x-request-id'];
      t.match(id, /^[0-9a-f]{16}-[0-9a-z]+$/, `${c.name}: a request id`);
      const line = lines.map((l) => JSON.parse(l)).find((l) => l.request_id === id);
      t.ok(line, `${c.name}: a request line for ${String(id)}`);
      t.equal(line?.status, c.status, `${c.name}: the line has the status the caller got`);
      t.equal(line?.method, c.method);
      t.equal(line?.path, c.path.split('?')[0], `${c.name}: the path without the query`);
    }
    const laneLine = lines.map((l) => JSON.parse(l)).find((l) => l.request_id === lane.headers['x-request-id']);
    const koaLine = lines.map((l) => JSON.parse(l)).find((l) => l.request_id === viaKoa.headers['x-request-id']);
    t.same(Object.keys(laneLine ?? {}), Object.keys(koaLine ?? {}), `${c.name}: the same fields on both lines`);
  }

  const ok = lines.map((l) => JSON.parse(l)).find((l) => l.path === '/proxy/items' && l.status === 200);
  t.match(
    ok,
    {
      environment: 'dev',
      integration: 'fake',
      connection: 'c1',
      provider_host: new URL(setup.provider.url).host,
      provider_status: 200,
      upstream_ms: Number,
      duration_ms: Number,
    },
    'a forwarded call says which connection, which host, what the provider answered',
  );
  t.notOk(
    lines.some((l) => l.includes('sk_fake_0123456789') || l.includes(devKey)),
    'no key or credential in any line',
  );
});

t.test("the caller's request id is echoed on the lane, a malformed one replaced", async (t) => {
  const setup = await proxySetup(t);
  const control = { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' };
  const mine = await send(setup.gw.url, 'GET', '/proxy/items', { ...control, 'x-request-id': 'abc.123-x' });
  t.equal(mine.headers['x-request-id'], 'abc.123-x');
  const failing = await send(setup.gw.url, 'GET', '/proxy/items', {
    ...control,
    'connection-id': 'nobody',
    'x-request-id': 'abc.124-y',
  });
  t.equal(failing.status, 404);
  t.equal(failing.headers['x-request-id'], 'abc.124-y', 'an error answer carries it too');
  const bad = await send(setup.gw.url, 'GET', '/proxy/items', { ...control, 'x-request-id': 'no spaces <allowed>' });
  t.not(bad.headers['x-request-id'], 'no spaces <allowed>');
  t.match(bad.headers['x-request-id'], /^[0-9a-f]{16}-[0-9a-z]+$/);
});

t.test('a provider that dies mid-body: the caller sees a cut answer, never a JSON error after it', async (t) => {
  const setup = await proxySetup(t, {
    respond: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '100000' });
      res.write(Buffer.alloc(1000, 97));
      setTimeout(() => res.destroy(), 50);
    },
  });
  const control = { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' };
  const outcome = await send(setup.gw.url, 'GET', '/proxy/big', control).then(
    (answer) => ({ cut: false, body: answer.body.toString() }),
    () => ({ cut: true, body: '' }),
  );
  t.ok(outcome.cut, 'the answer was cut, not completed');
  t.notMatch(outcome.body, /"error"/, 'no error body glued onto the provider bytes');
  // The gateway still serves the next call.
  const next = await fetch(`${setup.gw.url}/providers/github`, { headers: { authorization: control.authorization } });
  t.equal(next.status, 200);
});
