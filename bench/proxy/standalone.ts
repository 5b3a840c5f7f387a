/*
 * The standalone server as a user runs it: its own process (`portico-server`), the default
 * configuration — SQLite store, request logs at info — with the log written to a file.
 * Set up through its HTTP API with the bench's providers, integrations and connections.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portWhenListening } from './listening.js';
import { processCpuMicros } from './proc-cpu.js';
import { benchProviders, benchRecords } from './providers.js';
import { benchSecretKey } from './scenarios.js';

export interface Standalone {
  port: number;
  /** The server process, for pinning (bench/proxy/pin.ts). */
  pid: number | undefined;
  /** CPU microseconds the server's process has used so far (Linux /proc; undefined elsewhere). */
  cpuMicros(): number | undefined;
  /** Signals the server while it runs (bench/proxy/freeze.ts); nothing once it has exited. */
  kill(signal: NodeJS.Signals): boolean;
  stop(): void;
}

export interface Launch {
  /** A command the server runs under, with its arguments (`valgrind …`): Node and the server follow them. */
  wrap?: string[];
  /** Longest wait for the server to listen; default 30 s. */
  startMs?: number;
}

/** `extraEnv`: more of the server's variables (e.g. `SERVICE_METRICS_TOKEN` for the metrics row). */
export async function startStandalone(
  upstreamPort: number,
  storeUrl: string | undefined,
  extraEnv: Record<string, string> = {},
  launch: Launch = {},
): Promise<Standalone> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-standalone-'));
  const providers = join(dir, 'providers.json');
  writeFileSync(providers, JSON.stringify(benchProviders(`http://127.0.0.1:${upstreamPort}`)));
  // PORTICO_BENCH_STANDALONE_ARGS: extra Node options for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.PORTICO_BENCH_STANDALONE_ARGS ?? '').split(' ').filter(Boolean);
  const [command, ...wrapArgs] = launch.wrap ?? [];
  const main = new URL('../../adapters/standalone/main.js', import.meta.url).pathname;
  const child: ChildProcess = spawn(
    command ?? process.execPath,
    command ? [...wrapArgs, process.execPath, ...nodeArgs, main] : [...nodeArgs, main],
    {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        SERVICE_SECRET_KEY: benchSecretKey,
        SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        SERVICE_STORE_URL: storeUrl ?? `sqlite://${join(dir, 'portico.db')}`,
        SERVICE_PROVIDERS_FILE: providers,
        SERVICE_LOG_FILE: join(dir, 'portico.log'),
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = () => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const port = await portWhenListening(child, 'the standalone server', launch.startMs ?? 30_000);
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${benchSecretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`standalone setup ${path}: ${res.status} ${await res.text()}`);
  };
  const { integrations, connections } = benchRecords();
  for (const integration of integrations) await api('/integrations', integration);
  for (const connection of connections) await api('/connections', connection);
  return {
    port,
    pid: child.pid,
    cpuMicros: () => processCpuMicros(child.pid),
    kill: (signal) => child.kill(signal),
    stop,
  };
}
