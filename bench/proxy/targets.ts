/*
 * Portico in process (the embedded stack), in a process of its own (so RSS is its alone; the
 * bare forwarder, the reference, is a process of its own too: bare-process.ts):
 *   - Portico, with an API key, an OAuth2 and an APP connection to the same upstream, twice:
 *     request logs off, and on (written to a file, as the standalone server does by default).
 * The upstream's port arrives as argv[2]; argv[3] is `tuned` when the process is to be set up as
 * README's "Mounting" tells an application that owns its process (tuneServerProcess at start,
 * settleHttpShapes before the first request), `untuned` when not. Ports are reported to the
 * harness over IPC.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { settleHttpShapes, tuneServerProcess } from '../../lib/runtime/index.js';
import { benchProviders, benchRecords } from './providers.js';
import { benchSecretKey } from './scenarios.js';

const upstream = `http://127.0.0.1:${process.argv[2]}`;
const tuned = process.argv[3] === 'tuned';
if (tuned) tuneServerProcess();

const listen = (server: Server) =>
  new Promise<number>((resolve) => {
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

/** Portico in this process, on the memory store; `logFile` turns the request log on (the standalone server's default, written to a file). */
async function portico(logFile: string | undefined) {
  const storage = createMemoryStorage();
  const gateway = await createGateway({
    environments: [{ name: 'bench', secretKey: benchSecretKey }],
    storage,
    encryptionKeys: randomBytes(32).toString('base64'),
    baseUrl: 'http://127.0.0.1',
    logger: logFile ? createLogger({ level: 'info', destination: logFile }) : createLogger({ level: 'silent' }),
    providers: benchProviders(upstream),
  });
  const { integrations, connections } = benchRecords();
  for (const integration of integrations) await gateway.integrations.create('bench', integration);
  for (const connection of connections) await gateway.connections.upsert('bench', connection, 'import');
  return createServer(gateway.callback());
}

const logDir = mkdtempSync(join(tmpdir(), 'portico-bench-logs-'));
process.on('exit', () => rmSync(logDir, { recursive: true, force: true }));
const silentServer = await portico(undefined);
const loggedServer = await portico(join(logDir, 'requests.log'));
if (tuned) await settleHttpShapes();
const porticoPort = await listen(silentServer);
const loggedPort = await listen(loggedServer);

/** Garbage-collection pauses so far, by kind: `--verbose` prints them per measurement. */
const gc = { minor: 0, major: 0, ms: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.ms += entry.duration;
    // kind 1 is a scavenge; everything else (mark-compact, incremental marking, weak callbacks) counts as major.
    if (((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind === 1) gc.minor++;
    else gc.major++;
  }
}).observe({ entryTypes: ['gc'] });

/** RSS sampling for the large-body run: the peak between `rss-start` and `rss-stop`. */
let sampler: NodeJS.Timeout | undefined;
let baseline = 0;
let peak = 0;
process.on('message', (message: { type: string }) => {
  if (message.type === 'rss-start') {
    (globalThis as { gc?: () => void }).gc?.();
    baseline = process.memoryUsage.rss();
    peak = baseline;
    sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 20);
    process.send?.({ type: 'rss-started', baseline });
  } else if (message.type === 'cpu') {
    // CPU time is steadier than req/s on a busy machine: the harness reports both.
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: user + system, gc: { ...gc } });
  } else if (message.type === 'rss-stop') {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    process.send?.({ type: 'rss', baseline, peak });
  }
});
process.send?.({ type: 'ready', porticoPort, loggedPort });
process.on('disconnect', () => process.exit(0));
