import { Agent, type ClientRequest } from 'node:http';
import t, { type Test } from 'tap';
import { agentOptionsFor, unsetByPortico } from '../../lib/proxy/upstream.js';
import { devKey, startGateway } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { apiKey, providerEntry, send } from './helpers.js';

/**
 * The options the proxy hands Node for a provider request (lib/proxy/upstream.ts,
 * `createOutgoingBase`): only the fields a request needs, and one reused base object per
 * protocol that never carries one request's values into another's.
 */

type AddRequest = (req: ClientRequest, options: Record<string, unknown>) => void;

/** Records the enumerable options every request on an http Agent was added with, until the test ends. */
function spyOnAgents(t: Test, agents: Agent[] = []): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  const proto = Agent.prototype as unknown as { addRequest: AddRequest };
  const original = proto.addRequest;
  proto.addRequest = function (this: Agent, req, options) {
    seen.push({ ...options });
    agents.push(this);
    original.call(this, req, options);
  };
  t.teardown(() => {
    proto.addRequest = original;
  });
  return seen;
}

async function twoProviders(t: Test) {
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
  return { a, b, call };
}

t.test('a provider request reaches Node with only the fields it needs', async (t) => {
  const { a, call } = await twoProviders(t);
  const seen = spyOnAgents(t);
  const res = await call('a', '/v1/items?page=2');
  t.equal(res.status, 200);
  const toProvider = seen.filter((options) => options.port === Number(new URL(a.url).port));
  t.equal(toProvider.length, 1, 'one request to the provider');
  const options = toProvider[0] as Record<string, unknown>;
  for (const field of unsetByPortico) t.notOk(field in options, `no ${field}`);
  t.match(options, { host: '127.0.0.1', hostname: '127.0.0.1', method: 'GET', path: '/a/v1/items?page=2' });
  t.equal((options.headers as Record<string, string>).authorization, `Bearer ${apiKey}-a`, 'the credential header');
  // Agent.addRequest adds its own fields (keepAlive, noDelay, …): the request's own are these.
  t.same(
    Object.keys(options).filter((key) => !['keepAlive', 'maxFreeSockets', 'scheduling', 'noDelay'].includes(key)),
    ['port', 'host', 'hostname', 'method', 'headers', 'agent', 'path'],
    'the request fields, nothing else',
  );
});

t.test("the agent's own options, copied into every request, are only what differs from Node's defaults", async (t) => {
  const { a, call } = await twoProviders(t);
  const agents: Agent[] = [];
  const seen = spyOnAgents(t, agents);
  t.equal((await call('a', '/v1/items')).status, 200);
  t.equal((await call('a', '/v1/items')).status, 200);
  const port = Number(new URL(a.url).port);
  const agent = agents[seen.findIndex((options) => options.port === port)] as Agent & {
    options: Record<string, unknown>;
    scheduling: string;
    keepAlive: boolean;
  };
  // Agent.addRequest spreads these into each request's options; Node adds noDelay and path itself.
  t.same(Object.keys(agent.options).sort(), ['keepAlive', 'noDelay', 'path'], 'keepAlive, and what Node adds');
  t.equal(agent.keepAlive, true, 'sockets are kept alive');
  t.equal(agent.scheduling, 'lifo', 'the most recently used free socket is reused first');
  t.equal(agent.maxFreeSockets, 256, "Node's default number of free sockets kept");
  t.equal(Object.values(agent.freeSockets).flat().length, 1, "the second call reused the first call's socket");
  t.same(agentOptionsFor(256), { keepAlive: true });
  t.same(agentOptionsFor(32), { keepAlive: true, maxFreeSockets: 32 }, 'a configured limit is passed on');
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
