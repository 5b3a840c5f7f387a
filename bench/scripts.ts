/**
 * Scripts benchmark (issue 7), on the compiled package (workers load JavaScript, as in production):
 *   1. a warm worker pool against one new worker per run (the pool decision);
 *   2. a trivial action's round trip through POST /action/trigger;
 *   3. proxy throughput with no script running, then while one and two scripts spin forever.
 *
 *   npm run bench:scripts
 *   npm run bench:scripts -- --requests 5000 --concurrency 32 --runs 300 --nice 0
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createMemoryStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import { createWorkerPool } from '../lib/scripts/runtime/pool.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '16' },
    runs: { type: 'string', default: '200' },
    nice: { type: 'string', default: '10' },
  },
});
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const RUNS = Number(args.runs);
const secretKey = 'sk_bench_scripts_0123456789';

const dir = mkdtempSync(join(tmpdir(), 'portico-bench-scripts-'));
const zodUrl = import.meta.resolve('zod');
const defineUrl = new URL('../lib/scripts/define/index.js', import.meta.url).href;
const script = (name: string, body: string) => {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, `import { z } from ${JSON.stringify(zodUrl)};\nimport { createAction } from ${JSON.stringify(defineUrl)};\n${body}\n`);
  return pathToFileURL(file).href;
};
const echo = script('echo', `export default createAction({ input: z.object({ v: z.number() }), output: z.object({ v: z.number() }), exec: async (s, input) => input });`);
const spin = script('spin', `export default createAction({ input: z.object({}), output: z.object({}), exec: async () => { for (;;) {} } });`);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function poolRuns(maxTasksPerWorker: number, runs: number): Promise<number> {
  const pool = createWorkerPool({ size: 1, heapMb: 128, maxTasksPerWorker });
  const context = { runId: 'r', environment: 'dev', providerConfigKey: 'p', connectionId: 'c', provider: 'x', baseUrl: 'http://127.0.0.1:1', paginate: null };
  const handlers = { onCall: async () => null, onLog: () => {} };
  await pool.run(echo, { type: 'inspect' }, handlers, 30_000);
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    const outcome = await pool.run(echo, { type: 'action', context, input: { v: i }, outputLimitBytes: 1 << 21 }, handlers, 30_000);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
  }
  const perRun = (performance.now() - started) / runs;
  await pool.close();
  return perRun;
}

function call(agent: Agent, port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { authorization: `Bearer ${secretKey}`, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function throughput(agent: Agent, port: number): Promise<number> {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < REQUESTS) {
      next++;
      const status = await call(agent, port, 'GET', `/proxy/ping/${next}`, { 'provider-config-key': 'fake', 'connection-id': 'c1' });
      if (status !== 200) failed++;
    }
  }));
  if (failed > 0) throw new Error(`${failed} proxied calls failed`);
  return REQUESTS / ((performance.now() - started) / 1000);
}

const provider = createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end('{"pong":true}'); });
await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
const providerPort = (provider.address() as AddressInfo).port;
const storage = createMemoryStorage();
const gateway = await createGateway({
  environments: [{ name: 'dev', secretKey }],
  storage,
  encryptionKeys: Buffer.alloc(32, 7).toString('base64'),
  baseUrl: 'http://127.0.0.1',
  logger: createLogger({ level: 'silent' }),
  providers: [{ name: 'fake-api', display_name: 'Fake', logo_url: 'https://example.com/l.svg', categories: ['test'], auth_mode: 'API_KEY', docs: 'https://example.com', proxy: { base_url: `http://127.0.0.1:${providerPort}` } }],
  scripts: { workers: 2, nice: Number(args.nice), actionTimeoutMs: 600_000, modules: [{ file: echo, integrations: ['fake'] }, { file: spin, integrations: ['fake'] }] },
});
const server = createServer(gateway.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const json = { 'content-type': 'application/json' };
await call(agent, port, 'POST', '/integrations', json, JSON.stringify({ unique_key: 'fake', provider: 'fake-api' }));
await call(agent, port, 'POST', '/connections', json, JSON.stringify({ provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'k' } }));

console.log(`node ${process.version}, ${RUNS} runs, ${REQUESTS} proxied calls at concurrency ${CONCURRENCY}, script threads at nice ${args.nice}`);
console.log(`worker pool, warm worker:        ${ms(await poolRuns(200, RUNS))} per action run`);
console.log(`one new worker per run:          ${ms(await poolRuns(1, Math.min(RUNS, 50)))} per action run`);

const latencies: number[] = [];
const actionHeaders = { ...json, 'provider-config-key': 'fake', 'connection-id': 'c1' };
for (let i = 0; i < RUNS; i++) {
  const started = performance.now();
  const status = await call(agent, port, 'POST', '/action/trigger', actionHeaders, JSON.stringify({ action_name: 'echo', input: { v: i } }));
  if (status !== 200) throw new Error(`action answered ${status}`);
  latencies.push(performance.now() - started);
}
latencies.sort((a, b) => a - b);
console.log(`POST /action/trigger (echo):     p50 ${ms(percentile(latencies, 0.5))}, p99 ${ms(percentile(latencies, 0.99))}`);

await throughput(agent, port); // warm-up
const idle = await throughput(agent, port);
console.log(`proxy, no script running:        ${idle.toFixed(0)} req/s`);
await call(agent, port, 'POST', '/action/trigger', { ...actionHeaders, 'x-async': 'true' }, JSON.stringify({ action_name: 'spin', input: {} }));
await new Promise((resolve) => setTimeout(resolve, 500));
const oneSpinning = await throughput(agent, port);
console.log(`proxy, one script spinning:      ${oneSpinning.toFixed(0)} req/s (${((oneSpinning / idle) * 100).toFixed(0)}%)`);
await call(agent, port, 'POST', '/action/trigger', { ...actionHeaders, 'x-async': 'true' }, JSON.stringify({ action_name: 'spin', input: {} }));
await new Promise((resolve) => setTimeout(resolve, 500));
const twoSpinning = await throughput(agent, port);
console.log(`proxy, two scripts spinning:     ${twoSpinning.toFixed(0)} req/s (${((twoSpinning / idle) * 100).toFixed(0)}%)`);

agent.destroy();
await new Promise<void>((resolve) => server.close(() => resolve()));
await gateway.close();
await storage.close();
provider.close();
rmSync(dir, { recursive: true, force: true });
