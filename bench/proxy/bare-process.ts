/*
 * The bare forwarder (bare.ts) in a process of its own (bare-server.ts): the reference every
 * proxy figure is read against, alone in its process as Portico's standalone server is.
 */
import { spawn } from 'node:child_process';
import { portWhenListening } from './listening.js';
import { processCpuMicros } from './proc-cpu.js';

export interface BareProcess {
  port: number;
  pid: number;
  /** CPU microseconds the process has used so far (Linux /proc; undefined elsewhere). */
  cpuMicros(): number | undefined;
  /** Signals the process while it runs (bench/proxy/freeze.ts); nothing once it has exited. */
  kill(signal: NodeJS.Signals): boolean;
  stop(): void;
}

export interface BareLaunch {
  /** A command the forwarder runs under, with its arguments (`valgrind …`). */
  wrap?: string[];
  env?: Record<string, string>;
  /** Longest wait for it to listen; default 30 s. */
  startMs?: number;
}

export async function startBareProcess(upstreamPort: number, launch: BareLaunch = {}): Promise<BareProcess> {
  const [command, ...wrapArgs] = launch.wrap ?? [];
  const entry = new URL('./bare-server.js', import.meta.url).pathname;
  // PORTICO_BENCH_BARE_ARGS: extra Node options for the forwarder, as PORTICO_BENCH_STANDALONE_ARGS for the server.
  const nodeArgs = (process.env.PORTICO_BENCH_BARE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, entry, String(upstreamPort)];
  const child = spawn(command ?? process.execPath, command ? [...wrapArgs, process.execPath, ...args] : args, {
    stdio: ['ignore', 'pipe', 'ignore'],
    ...(launch.env ? { env: launch.env } : {}),
  });
  const stop = () => child.kill();
  process.once('exit', stop);
  const port = await portWhenListening(child, 'the bare forwarder', launch.startMs ?? 30_000);
  return {
    port,
    pid: child.pid as number,
    cpuMicros: () => processCpuMicros(child.pid),
    kill: (signal) => child.kill(signal),
    stop,
  };
}
