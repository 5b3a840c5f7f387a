import { spawn } from 'node:child_process';

export interface ModuleRun {
  stdout: string;
  stderr: string;
  /** The exit code; null when the process was killed (at `limitMs`, or by a signal). */
  code: number | null;
  /** From the start to the exit. */
  ms: number;
}

/**
 * Runs `source` (an ES module, TypeScript through tsx) in a new Node process (with
 * `nodeOptions` before it, e.g. `--expose-gc`) and answers once it
 * exits by itself, or is killed at `limitMs` (default 120 s): a test of what keeps a process
 * alive reads `code` and `ms`.
 */
export async function runModule(
  source: string,
  options: { limitMs?: number; cwd?: string; env?: NodeJS.ProcessEnv; nodeOptions?: string[] } = {},
): Promise<ModuleRun> {
  const started = Date.now();
  const args = [...(options.nodeOptions ?? []), '--import', 'tsx', '--input-type=module', '-e', source];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const killer = setTimeout(() => child.kill('SIGKILL'), options.limitMs ?? 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(killer);
  return { stdout, stderr, code, ms: Date.now() - started };
}

/** An import specifier for a module of the repository, from a test file's `import.meta.url`. */
export const moduleUrl = (path: string, from: string) => JSON.stringify(new URL(path, from).href);
