import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../exit.js';

/** A JSON option: inline (`'{"a":1}'`) or from a file (`@input.json`). */
export function jsonArgument(value: string | boolean | undefined, name: string, cwd: string): unknown {
  if (typeof value !== 'string') return undefined;
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(resolve(cwd, value.slice(1)), 'utf8');
    } catch (error) {
      throw usageError(
        `--${name} ${value}: cannot read the file (${error instanceof Error ? error.message : String(error)}).`,
      );
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw usageError(
      `--${name} is not JSON: ${error instanceof Error ? error.message : String(error)}. Pass JSON text or @file.json.`,
    );
  }
}
