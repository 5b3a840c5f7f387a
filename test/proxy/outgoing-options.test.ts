import http from 'node:http';
import t, { type Test } from 'tap';
import type { GatewayOptions } from '../../lib/gateway.js';
import { unsetByPortico } from '../../lib/proxy/upstream.js';
import { devKey, startGateway } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { apiKey, providerEntry, send } from './helpers.js';

/**
 * The options the proxy hands Node for a provider request (lib/proxy/upstream.ts,
 * `createOutgoingBase`): only the fields a request needs, and one reused base object per
 * protocol that never carries one request's values into another's; and the keep-alive pool
 * they go through (lib/proxy/socket-pool.ts).
 */

type Request = typeof http.request;

/** Records the options of every `http.request` (http-proxy-3 calls it through the module object) until the test ends. */
function spyOnRequests(t: Test): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  const original = http.request;
  http.request = function (this: unknown, ...args: Parameters<Request>) {
    if (typeof args[0] === 'object' && !(args[0] instanceof URL)) seen.push({ ...args[0] });
    return original.apply(this, args);
  } as Request;
  t.teardown(() => {
    http.request = original;
  });
  return seen;
}

async function twoProviders(t: Test, overrides: Partial<GatewayOptions> = {}) {
  const a = await fakeProvider((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ provider: 'a', url: req.url, auth: req.headers.authorization }));
  });
  const b = await fakeProvider((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ provider: 'b', url: req.url, auth: req.headers.authorization }));
  });
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const gw = await startGateway(t, {
    providers: [providerEntry('api-a', `${a.url}/a`), providerEntry('api-b', `${b.url}/b`)],
    ...overrides,
  });
  for (const key of ['a', 'b']) {
    t.equal(
      (await gw.call('POST', '/integrations', { body: { unique_key: key, provider: `api-${key}` } })).status,
      201,
    );
    t.equal(
      (
        await gw.call('POST', '/connections', {
          body: {
            provider_config_key: key,
            connection_id: 'c1',
            credentials: { type: 'API_KEY', apiKey: `${apiKey}-${key}` },
          },
        })
      ).status,
      201,
    );
  }
  const call = (key: string, path: string) =>
    send(gw.url, 'GET', `/proxy${path}`, {
      authorization: `Bearer ${devKey}`,
      'provider-config-key': key,
      'connection-id': 'c1',
    });
  return { a, b, call, gw };
}

t.test('a provider request reaches Node with only the fields it needs', async (t) => {
  const { a, call } = await twoProviders(t);
  const seen = spyOnRequests(t);
  const res = await call('a', '/v1/items?page=2');
  t.equal(res.status, 200);
  const toProvider = seen.filter((options) => options.port === Number(new URL(a.url).port));
  t.equal(toProvider.length, 1, 'one request to the provider');
  const options = toProvider[0] as Record<string, unknown>;
  for (const field of unsetByPortico) t.notOk(field in options, `no ${field}`);
  t.match(options, { host: '127.0.0.1', hostname: '127.0.0.1', method: 'GET', path: '/a/v1/items?page=2' });
  t.equal((options.headers as Record<string, string>).authorization, `Bearer ${apiKey}-a`, 'the credential header');
  t.same(
    Object.keys(options),
    ['port', 'host', 'hostname', 'method', 'headers', 'agent', 'path'],
    'the request fields, nothing else',
  );
});

t.test(
  "provider requests go through the gateway's keep-alive pool: one connection for calls one after another",
  async (t) => {
    const { a, call, gw } = await twoProviders(t);
    const connections: unknown[] = [];
    a.server.on('connection', (socket) => connections.push(socket));
    const seen = spyOnRequests(t);
    t.equal((await call('a', '/v1/items')).status, 200);
    t.equal((await call('a', '/v1/items')).status, 200);
    const port = Number(new URL(a.url).port);
    const agents = seen.filter((options) => options.port === port).map((options) => options.agent);
    t.equal(agents.length, 2);
    t.equal(agents[0], agents[1], 'one pool for both');
    t.match(
      agents[0],
      { protocol: 'http:', keepAlive: true, maxFreeSockets: 256 },
      "Node's default of free sockets kept",
    );
    t.equal(connections.length, 1, "the second call reused the first call's connection");
    t.same(gw.gateway.proxy.sockets(), { active: 0, idle: 1 }, 'which waits idle');
  },
);

t.test("a configured number of free sockets is the pool's", async (t) => {
  const { a, call } = await twoProviders(t, { proxy: { maxFreeSockets: 32 } });
  const seen = spyOnRequests(t);
  t.equal((await call('a', '/v1/items')).status, 200);
  const port = Number(new URL(a.url).port);
  t.match(seen.find((options) => options.port === port)?.agent, { maxFreeSockets: 32 });
});

t.test("interleaved calls to two providers: each gets its own path and credential, never the other's", async (t) => {
  const { a, b, call } = await twoProviders(t);
  const calls = Array.from({ length: 60 }, (_, i) => {
    const key = i % 3 === 0 ? 'b' : 'a';
    return call(key, `/v1/n/${i}?q=${key}${i}`).then((res) => ({ i, key, res }));
  });
  for (const { i, key, res } of await Promise.all(calls)) {
    t.equal(res.status, 200, `call ${i}`);
    t.same(
      res.json,
      { provider: key, url: `/${key}/v1/n/${i}?q=${key}${i}`, auth: `Bearer ${apiKey}-${key}` },
      `call ${i} went to ${key} with its own path and key`,
    );
  }
  t.equal(a.received.length, 40);
  t.equal(b.received.length, 20);
  t.ok(
    b.received.every((r) => r.url.startsWith('/b/') && r.headers.authorization === `Bearer ${apiKey}-b`),
    'provider b saw only its own requests',
  );
});
