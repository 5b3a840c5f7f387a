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

t.test('timing', async (t) => {
  const provider = await holdingProvider();
  const gw = await startGateway(t, { providers: [providerEntry('fake-api', provider.server.url)] });
  t.teardown(() => provider.server.close());
  await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  await gw.call('POST', '/connections', { body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } } });
  const { port } = new URL(gw.url);
  const phases: number[][] = [];
  for (let n = 0; n < 200; n++) {
    const t0 = performance.now(); let t1 = 0, t2 = 0;
    provider.arrived.set('p' + n, () => { t1 = performance.now(); });
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, agent: false, path: '/proxy/v1/x', headers: { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1', 'x-call': 'p' + n, 'x-scenario': 'mid-response' } });
      req.on('error', () => {});
      req.on('response', (res) => { t2 = performance.now(); res.once('data', () => { phases.push([t1 - t0, t2 - t1, performance.now() - t2]); req.destroy(); resolve(); }); });
      req.end();
    });
  }
  const slow = phases.filter((p) => p[0]! + p[1]! + p[2]! > 20);
  console.log('slow', slow.length, JSON.stringify(slow.slice(0, 10).map((p) => p.map(Math.round))));
  const avg = [0,1,2].map((k) => phases.reduce((a, p) => a + p[k]!, 0) / phases.length);
  console.log('avg', avg);
});
