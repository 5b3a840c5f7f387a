import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

export interface BuiltCli {
  /** The bin, as the package ships it: plain JavaScript next to its `.ts` sources. */
  main: string;
  remove(): void;
}

/**
 * Builds the package's `lib/` into a temporary folder the way `npm run build` lays it out
 * (`lib/cli/main.js`…), with esbuild transpiling each file (about a second; tsc would
 * type-check the whole project first). The `.ts` sources sit beside the output, as the
 * `.d.ts` files do in `dist/`, for the CLI's type-check of scripts.
 */
export async function buildCli(): Promise<BuiltCli> {
  const esbuild = await import('esbuild');
  const out = mkdtempSync(join(tmpdir(), 'portico-cli-'));
  const lib = join(repo, 'lib');
  const sources = (readdirSync(lib, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(lib, f));
  await esbuild.build({
    entryPoints: sources,
    outdir: join(out, 'lib'),
    outbase: lib,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
  cpSync(lib, join(out, 'lib'), {
    recursive: true,
    filter: (src) => !/\.[a-z]+$/i.test(src) || src.endsWith('.ts') || src.endsWith('.json'),
  });
  writeFileSync(join(out, 'package.json'), JSON.stringify({ name: 'portico', version: '0.1.0', type: 'module' }));
  symlinkSync(join(repo, 'node_modules'), join(out, 'node_modules'), 'dir');
  return { main: join(out, 'lib', 'cli', 'main.js'), remove: () => rmSync(out, { recursive: true, force: true }) };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed, for `--json` runs. */
  json: any;
}

/** Runs `portico …` as a child process in `cwd`, as a user would; no SERVICE_* from this process leaks in. */
export function runPortico(
  cli: BuiltCli,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<CliRun> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli.main, ...args], {
      cwd: options.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
    child.stdin.end(options.input ?? '');
  });
}
