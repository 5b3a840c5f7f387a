import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { CatalogError, parseProviders } from '../../lib/providers/index.js';

/**
 * Reads SERVICE_PROVIDERS_FILE: a JSON or YAML array of catalog entries (docs/providers.md).
 * Checked here, before anything starts, so every problem names the file and the entry.
 */
export function readProvidersFile(path: string): unknown[] {
  let value: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    value = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
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
