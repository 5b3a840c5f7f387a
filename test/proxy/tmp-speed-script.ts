import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { devKey, type TestGateway } from '../helpers/gateway.js';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { randomBytes } from 'node:crypto';
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


const provider = await holdingProvider();
const storage = createMemoryStorage();
const gateway = await createGateway({ environments: [{ name: 'dev', secretKey: devKey }], storage, encryptionKeys: randomBytes(32).toString('base64'), baseUrl: 'http://127.0.0.1', logger: createLogger({ level: 'silent' }), providers: [providerEntry('fake-api', provider.server.url)] });
await gateway.integrations.create('dev', { unique_key: 'fake', provider: 'fake-api' });
await gateway.connections.upsert('dev', { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } }, 'import');
const server = await listen(gateway.callback());
const gw = { url: server.url } as TestGateway;
for (const par of [16, 64, 128]) {
  const t0 = performance.now(); const c0 = process.cpuUsage();
  await run(gw, provider, par * 10000, 3000, par);
  const c = process.cpuUsage(c0);
  console.log(par, Math.round(performance.now() - t0), 'cpu', Math.round((c.user + c.system) / 1000), provider.state.aborted);
}
await server.close(); await provider.server.close(); await gateway.close(); await storage.close();
