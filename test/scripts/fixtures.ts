import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where test scripts import the script API from: the package source, as a script bundle would import `portico`. */
export const defineUrl = new URL('../../lib/scripts/define/index.ts', import.meta.url).href;

/** Writes an ES module script into `dir` (a `t.testdir()`); `z`, `createSync`, `createAction`, `createOnEvent` and `ActionError` are in scope. */
export function writeScript(dir: string, fileName: string, body: string): string {
  const file = join(dir, fileName);
  writeFileSync(file, `import { z } from 'zod';\nimport { createSync, createAction, createOnEvent, ActionError } from ${JSON.stringify(defineUrl)};\n${body}\n`);
  return file;
}
