import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What script authors import (`portico/scripts`, or `portico`): this package's own copy. */
export interface ScriptApiFiles {
  /** The module bundled into every script: createSync, createAction… (no gateway code). */
  runtime: string;
  /** Its types, for the type-check. */
  types: string;
}

const sibling = (file: string, ext: string) => file.replace(/\.js$/, ext);

/**
 * The script API next to this file: `.js` and `.d.ts` in the built package, `.ts` when run from
 * the sources. Found relative to this module, so it works wherever the package is installed.
 */
export function scriptApiFiles(): ScriptApiFiles {
  const js = fileURLToPath(new URL('../../scripts/define/index.js', import.meta.url));
  const ts = sibling(js, '.ts');
  const dts = sibling(js, '.d.ts');
  const runtime = existsSync(js) ? js : ts;
  const types = existsSync(dts) ? dts : existsSync(ts) ? ts : js;
  if (!existsSync(runtime)) throw new Error(`the script API is missing from this installation (${js})`);
  return { runtime, types };
}

/**
 * The node_modules folder holding this package's own zod: a scripts folder without its own
 * zod (a fresh `portico init`) still compiles, with the zod this CLI was installed with.
 */
export function fallbackNodeModules(): string {
  const zodPackage = createRequire(import.meta.url).resolve('zod/package.json');
  return dirname(dirname(zodPackage));
}

/** A file inside this package, as the place module names are resolved from for the fallback. */
export const ownAnchor = (): string => fileURLToPath(import.meta.url);
