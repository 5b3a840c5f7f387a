/**
 * Scripts benchmark (issues 7 and 15), on the compiled package (script processes load JavaScript, as in production):
 *   1. a warm pool against one new process per run (the pool decision);
 *   2. a trivial action's round trip through POST /action/trigger;
 *   3. sync throughput: records a sync saves per second through the gateway (100 batches of 100);
 *   4. proxy throughput with no script running, then while one and two scripts spin forever.
 *
 *   npm run bench:scripts
 *   npm run bench:scripts -- --requests 5000 --concurrency 32 --runs 300 --nice 0
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { createMemoryStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import { createWorkerPool } from '../lib/scripts/runtime/pool.js';
import { benchArgs } from './args.js';

const args = benchArgs('bench:scripts', {
  requests: { type: 'string', default: '3000', help: 'proxied calls per throughput figure' },
  concurrency: { type: 'string', default: '16', help: 'proxied calls in flight at once' },
  runs: {
    type: 'string',
    default: '200',
    help: 'action runs on the warm pool and through POST /action/trigger (at most 50 on new runtimes)',
  },
  nice: { type: 'string', default: '10', help: 'Linux nice value of the script processes, 0 to 19' },
});
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const RUNS = Number(args.runs);
const secretKey = 'sk_bench_scripts_0123456789';

const dir = mkdtempSync(join(tmpdir(), 'portico-bench-scripts-'));
const definePath = fileURLToPath(new URL('../lib/scripts/define/index.js', import.meta.url));
// Self-contained bundles, as `portico compile` makes them (a script process reads nothing else).
const script = (name: string, body: string) => {
  const file = join(dir, `${name}.mjs`);
  const source = `import { z } from 'zod';\nimport { createAction, createSync } from ${JSON.stringify(definePath)};\n${body}\n`;
  const built = buildSync({
    stdin: { contents: source, resolveDir: fileURLToPath(new URL('.', import.meta.url)) },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  writeFileSync(file, built.outputFiles[0]?.text ?? '');
  return pathToFileURL(file).href;
};
const echo = script(
  'echo',
  `export default createAction({ input: z.object({ v: z.number() }), output: z.object({ v: z.number() }), exec: async (s, input) => input });`,
);
const bulk = script(
  'bulk',
  `export default createSync({ frequency: 'every day', autoStart: false, models: { Item: z.object({ id: z.string(), n: z.number() }) },
  exec: async (s) => { for (let b = 0; b < 100; b++) await s.batchSave(Array.from({ length: 100 }, (_, i) => ({ id: b + '-' + i, n: i })), 'Item'); } });`,
);
const spin = script(
  'spin',
  `export default createAction({ input: z.object({}), output: z.object({}), exec: async () => { for (;;) {} } });`,
);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function poolRuns(maxTasksPerWorker: number, runs: number): Promise<number> {
  const pool = createWorkerPool({ size: 1, heapMb: 128, maxTasksPerWorker, readable: [`${dir}/`] });
  const context = {
    runId: 'r',
    environment: 'dev',
    providerConfigKey: 'p',
    connectionId: 'c',
    provider: 'x',
    baseUrl: 'http://127.0.0.1:1',
    paginate: null,
  };
  const handlers = { onCall: async () => null, onLog: () => {} };
  await pool.run(echo, { type: 'inspect' }, handlers, 30_000);
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    const outcome = await pool.run(
      echo,
      { type: 'action', context, input: { v: i }, outputLimitBytes: 1 << 21 },
      handlers,
      30_000,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
  }
  const perRun = (performance.now() - started) / runs;
  await pool.close();
  return perRun;
}

function call(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, agent, headers: { authorization: `Bearer ${secretKey}`, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function throughput(agent: Agent, port: number): Promise<number> {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const status = await call(agent, port, 'GET', `/proxy/ping/${next}`, {
          'provider-config-key': 'fake',
          'connection-id': 'c1',
        });
        if (status !== 200) failed++;
      }
    }),
  );
  if (failed > 0) throw new Error(`${failed} proxied calls failed`);
  return REQUESTS / ((performance.now() - started) / 1000);
}

const provider = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"pong":true}');
});
await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
const providerPort = (provider.address() as AddressInfo).port;
const storage = createMemoryStorage();
const gateway = await createGateway({
  environments: [{ name: 'dev', secretKey }],
  storage,
  encryptionKeys: Buffer.alloc(32, 7).toString('base64'),
  baseUrl: 'http://127.0.0.1',
  logger: createLogger({ level: 'silent' }),
  providers: [
    {
      name: 'fake-api',
      display_name: 'Fake',
      logo_url: 'https://example.com/l.svg',
      categories: ['test'],
      auth_mode: 'API_KEY',
      docs: 'https://example.com',
      proxy: { base_url: `http://127.0.0.1:${providerPort}` },
    },
  ],
  scripts: {
    workers: 2,
    nice: Number(args.nice),
    actionTimeoutMs: 600_000,
    modules: [
      { file: echo, integrations: ['fake'] },
      { file: spin, integrations: ['fake'] },
      { file: bulk, integrations: ['fake'] },
    ],
  },
});
const server = createServer(gateway.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const json = { 'content-type': 'application/json' };
await call(agent, port, 'POST', '/integrations', json, JSON.stringify({ unique_key: 'fake', provider: 'fake-api' }));
await call(
  agent,
  port,
  'POST',
  '/connections',
  json,
  JSON.stringify({ provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'k' } }),
);

console.log(
  `node ${process.version}, ${RUNS} runs, ${REQUESTS} proxied calls at concurrency ${CONCURRENCY}, script threads at nice ${args.nice}`,
);
console.log(`pool, warm script runtime:      ${ms(await poolRuns(200, RUNS))} per action run`);
console.log(`a new runtime per run:           ${ms(await poolRuns(1, Math.min(RUNS, 50)))} per action run`);

const latencies: number[] = [];
const actionHeaders = { ...json, 'provider-config-key': 'fake', 'connection-id': 'c1' };
for (let i = 0; i < RUNS; i++) {
  const started = performance.now();
  const status = await call(
    agent,
    port,
    'POST',
    '/action/trigger',
    actionHeaders,
    JSON.stringify({ action_name: 'echo', input: { v: i } }),
  );
  if (status !== 200) throw new Error(`action answered ${status}`);
  latencies.push(performance.now() - started);
}
latencies.sort((a, b) => a - b);
console.log(
  `POST /action/trigger (echo):     p50 ${ms(percentile(latencies, 0.5))}, p99 ${ms(percentile(latencies, 0.99))}`,
);

const syncRates: number[] = [];
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  const outcome = await gateway.scripts.runSyncNow({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    sync: 'bulk',
    mode: 'full',
    trigger: 'api',
  });
  if (outcome.status !== 'success') throw new Error(`sync: ${JSON.stringify(outcome)}`);
  syncRates.push(10_000 / ((performance.now() - started) / 1000));
}
syncRates.sort((a, b) => a - b);
console.log(`sync, 100 batches of 100 records: median ${(syncRates[2] ?? NaN).toFixed(0)} records/s (5 runs)`);

await throughput(agent, port); // warm-up
const idle = await throughput(agent, port);
console.log(`proxy, no script running:        ${idle.toFixed(0)} req/s`);
await call(
  agent,
  port,
  'POST',
  '/action/trigger',
  { ...actionHeaders, 'x-async': 'true' },
  JSON.stringify({ action_name: 'spin', input: {} }),
);
await new Promise((resolve) => setTimeout(resolve, 500));
const oneSpinning = await throughput(agent, port);
console.log(
  `proxy, one script spinning:      ${oneSpinning.toFixed(0)} req/s (${((oneSpinning / idle) * 100).toFixed(0)}%)`,
);
await call(
  agent,
  port,
  'POST',
  '/action/trigger',
  { ...actionHeaders, 'x-async': 'true' },
  JSON.stringify({ action_name: 'spin', input: {} }),
);
await new Promise((resolve) => setTimeout(resolve, 500));
const twoSpinning = await throughput(agent, port);
console.log(
  `proxy, two scripts spinning:     ${twoSpinning.toFixed(0)} req/s (${((twoSpinning / idle) * 100).toFixed(0)}%)`,
);

agent.destroy();
await new Promise<void>((resolve) => server.close(() => resolve()));
await gateway.close();
await storage.close();
provider.close();
rmSync(dir, { recursive: true, force: true });
