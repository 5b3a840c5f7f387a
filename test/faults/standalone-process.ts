import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { devKey } from '../helpers/gateway.js';

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the exit code (and signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The standalone gateway (`adapters/standalone/main.ts`) as its own process, as an operator
 * runs it, on a random port, with `providers` as its providers file. Killed at teardown if
 * the test left it running.
 */
export async function startGatewayProcess(
  t: Test,
  providers: unknown[],
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-process-'));
  const providersFile = join(dir, 'providers.json');
  writeFileSync(providersFile, JSON.stringify(providers));
  const child = spawn(process.execPath, ['--import', 'tsx', 'adapters/standalone/main.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SERVICE_STORE_URL: 'memory://',
      SERVICE_SECRET_KEY: devKey,
      SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SERVICE_PROVIDERS_FILE: providersFile,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    // The banner names the public address, then the interface and port actually taken.
    const port = /listening on \S+ \(interface [^ ]*:(\d+)/.exec(out)?.[1];
    const url = port ? `http://127.0.0.1:${port}` : undefined;
    if (url) return { child, url, output: () => out, exited };
    if (child.exitCode !== null) throw new Error(`the gateway process exited at start:\n${out}`);
    if (Date.now() > deadline) throw new Error(`the gateway process did not start:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
