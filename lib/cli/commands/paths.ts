import { join, resolve } from 'node:path';
import { statSync } from 'node:fs';
import { usageError } from '../exit.js';
import type { CommandContext } from '../command.js';

/** The scripts folder (`--dir`, default the current folder) and the output folder (`--out`, default `<dir>/dist`). */
export function projectPaths(context: CommandContext): { root: string; outDir: string } {
  const root = resolve(context.io.cwd, typeof context.values.dir === 'string' ? context.values.dir : '.');
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
    throw usageError(`The scripts folder ${root} does not exist (--dir).`);
  const outDir =
    typeof context.values.out === 'string' ? resolve(context.io.cwd, context.values.out) : join(root, 'dist');
  return { root, outDir };
}
