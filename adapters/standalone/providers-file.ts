import { readFileSync } from 'node:fs';
import type * as Yaml from 'yaml';
import { onFirstUse } from '../../lib/on-first-use.js';
import { CatalogError, parseProviders } from '../../lib/providers/index.js';

/** yaml (about 0.9 MB of heap), loaded for a YAML file only: a JSON one never needs it. */
const loadYaml = onFirstUse<typeof Yaml>('yaml');

/**
 * Reads SERVICE_PROVIDERS_FILE: a JSON or YAML array of catalog entries (docs/providers.md).
 * Checked here, before anything starts, so every problem names the file and the entry.
 */
export function readProvidersFile(path: string): unknown[] {
  let value: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    value = /\.json$/i.test(path) ? JSON.parse(text) : loadYaml().parse(text);
  } catch (error) {
    throw new CatalogError([
      `SERVICE_PROVIDERS_FILE ${path}: ${error instanceof Error ? error.message : String(error)}`,
    ]);
  }
  if (!Array.isArray(value))
    throw new CatalogError([`SERVICE_PROVIDERS_FILE ${path}: expected an array of provider entries`]);
  parseProviders(value, `SERVICE_PROVIDERS_FILE ${path}`);
  return value;
}
