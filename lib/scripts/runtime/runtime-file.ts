import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The child's entry sits beside this file; under a TypeScript loader (tests) it is the .ts source.
const entryFile = fileURLToPath(
  new URL(`./worker/entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

const built = new Map<string, Promise<string>>();

/**
 * The script process's own code as ONE self-contained ES module (its zod inside), written once
 * into `dir`. The child process may read that one file and the bundles, nothing else of this
 * installation: no package folder, no node_modules, no loader. Content-addressed, so gateways
 * sharing `dir` never overwrite each other's file with a different one.
 */
export function runtimeFile(dir: string): Promise<string> {
  let pending = built.get(dir);
  if (!pending) {
    pending = build(dir);
    pending.catch(() => built.delete(dir));
    built.set(dir, pending);
  }
  return pending;
}

async function build(dir: string): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entryFile],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const code = result.outputFiles[0]?.text;
  if (code === undefined) throw new Error('the script runtime could not be built');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // A shared temp folder: one another user owns or may write to could swap the file under us.
  const folder = statSync(dir);
  if ((typeof process.getuid === 'function' && folder.uid !== process.getuid()) || (folder.mode & 0o022) !== 0) {
    throw new Error(`the script runtime folder ${dir} must belong to this user and be writable by no one else`);
  }
  const file = join(dir, `runtime-${createHash('sha256').update(code).digest('hex').slice(0, 32)}.mjs`);
  // Write then rename: a process never imports a half-written file.
  const temp = join(dir, `.runtime.${randomUUID()}.tmp`);
  writeFileSync(temp, code, { mode: 0o600 });
  renameSync(temp, file);
  return file;
}
