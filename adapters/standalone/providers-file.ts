import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** Reads SERVICE_PROVIDERS_FILE: a JSON or YAML array of catalog entries (spec 2.1 shape). */
export function readProvidersFile(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  const value: unknown = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  if (!Array.isArray(value)) throw new Error(`${path}: expected an array of provider entries`);
  return value;
}
