import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { devKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { apiKey, providerEntry } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type Scenario = 'mid-response' | 'before-response' | 'mid-upload';
const scenarios: Scenario[] = ['mid-response', 'before-response', 'mid-upload'];

/**
 * A provider that keeps every request open: it answers `mid-response` calls with headers and a
 * first chunk, the others not at all. It counts the requests whose connection closed before it
 * finished answering: each of those is an aborted call the gateway passed on.
 */
async function holdingProvider() {
  const arrived = new Map<string, () => void>();
  const state = { aborted: 0, open: 0 };
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    state.open++;
    res.on('close', () => {
      state.open--;
      if (!res.writableFinished) state.aborted++;
    });
    req.resume();
    if (req.headers['x-scenario'] === 'mid-response') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(16 * 1024, 1));
    }
    arrived.get(String(req.headers['x-call']))?.();
  });
  return { server, state, arrived };
}

/** One call that the caller abandons at the point its scenario names. */
function abandonedCall(gw: TestGateway, provider: Awaited<ReturnType<typeof holdingProvider>>, n: number, scenario: Scenario) {
  const { port } = new URL(gw.url);
  return new Promise<void>((resolve) => {
    const id = String(n);
    const upload = scenario === 'mid-upload';
    const req = httpRequest({
      host: '127.0.0.1', port, agent: false, method: upload ? 'POST' : 'GET', path: `/proxy/v1/hold/${n}`,
      headers: {
        authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1', 'x-call': id, 'x-scenario': scenario,
        ...(upload ? { 'content-length': '100000' } : {}),
      },
    });
    const abandon = () => {
      provider.arrived.delete(id);
      req.destroy();
      resolve();
    };
    req.on('error', () => {});
    if (scenario === 'mid-response') req.on('response', (res) => res.once('data', abandon));
    else provider.arrived.set(id, abandon);
    if (upload) req.write(Buffer.alloc(1000, 2));
    else req.end();
  });
}

async function run(gw: TestGateway, provider: Awaited<ReturnType<typeof holdingProvider>>, from: number, count: number, parallel = 64) {
  let next = from;
  const end = from + count;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < end) {
      const n = next++;
      await abandonedCall(gw, provider, n, scenarios[n % scenarios.length] as Scenario);
    }
  }));
}

/** Waits (bounded) for the provider side to see what the gateway did; events, not timing, decide. */
async function settle(check: () => boolean, rounds = 200) {
  for (let i = 0; i < rounds && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  return check();
}

t.test('10,000 calls abandoned mid-request or mid-response abort their provider requests, leaking nothing', async (t) => {
  const provider = await holdingProvider();
  const gw = await startGateway(t, { providers: [providerEntry('fake-api', provider.server.url)] });
  t.teardown(() => provider.server.close());
  await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  await gw.call('POST', '/connections', { body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } } });

  await run(gw, provider, 0, 600);
  t.ok(await settle(() => provider.state.aborted === 600), 'warm-up calls aborted upstream');
  gc();
  const heapBefore = process.memoryUsage().heapUsed;

  await run(gw, provider, 600, 10_000);
  t.ok(await settle(() => provider.state.aborted === 10_600), `every abandoned call aborted its provider request (${provider.state.aborted - 600} of 10000)`);
  t.ok(await settle(() => provider.state.open === 0), 'no provider request is left open');
  t.ok(await settle(() => gw.gateway.proxy.sockets().active === 0), 'the gateway holds no provider socket in use');
  const connections = await new Promise<number>((resolve) => provider.server.server.getConnections((_e, n) => resolve(n)));
  t.equal(connections, 0, 'the provider has no connection from the gateway left');

  gc();
  const grown = process.memoryUsage().heapUsed - heapBefore;
  t.ok(grown < 24 * 1024 * 1024, `heap after GC grew by ${(grown / 1024 / 1024).toFixed(1)} MiB over 10,000 calls (bound 24 MiB)`);
});
