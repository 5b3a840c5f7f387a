import '../helpers/script-processes.js';
import { buildSync } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where test scripts import the script API from: the package source, as a script bundle would import `portico`. */
export const defineUrl = new URL('../../lib/scripts/define/index.ts', import.meta.url).href;
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A script module as `portico compile` makes it: one self-contained ES module, zod and the
 * script API inside. `z`, `createSync`, `createAction`, `createOnEvent` and `ActionError` are in scope.
 * Script processes may read the bundle only, so a test script cannot import from the sources.
 */
export function bundleScript(body: string): string {
  const header = `import { z } from 'zod';\nimport { createSync, createAction, createOnEvent, ActionError } from ${JSON.stringify(fileURLToPath(defineUrl))};\n`;
  const result = buildSync({
    stdin: { contents: header + body, resolveDir: root, sourcefile: 'script.ts', loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** Writes a bundled script into `dir` (a `t.testdir()`) and returns its path. */
export function writeScript(dir: string, fileName: string, body: string): string {
  const file = join(dir, fileName);
  writeFileSync(file, bundleScript(body));
  return file;
}
