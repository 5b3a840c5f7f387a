import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { providerSchema, type Provider } from './schema.js';

export const builtInCatalogDir = fileURLToPath(new URL('./catalog/', import.meta.url));

export interface Catalog {
  get(name: string): Provider | undefined;
  list(): Provider[];
}

export class CatalogError extends Error {
  constructor(readonly problems: string[]) {
    super(`provider catalog is invalid:\n  ${problems.join('\n  ')}`);
    this.name = 'CatalogError';
  }
}

/** `<source> entry #3 "acme"`: where a problem is, in words a person can find it by. */
const entryLabel = (entry: unknown, index: number, source: string): string => {
  const name = (entry as { name?: unknown } | null)?.name;
  return `${source} entry #${index + 1}${typeof name === 'string' ? ` "${name}"` : ''}`;
};

/** Validates raw entries; every problem of every entry is reported at once, each naming the source and the entry. */
export function parseProviders(
  entries: readonly unknown[],
  source: string,
  labelOf = (entry: unknown, index: number) => entryLabel(entry, index, source),
): Provider[] {
  const problems: string[] = [];
  const providers: Provider[] = [];
  entries.forEach((entry, index) => {
    const result = providerSchema.safeParse(entry);
    if (result.success) providers.push(result.data);
    else
      for (const issue of result.error.issues) {
        problems.push(`${labelOf(entry, index)}: ${issue.path.join('.') || '(entry)'}: ${issue.message}`);
      }
  });
  if (problems.length > 0) throw new CatalogError(problems);
  return providers;
}

/** Reads the one-file-per-provider catalog folder. */
export function readCatalogDir(dir: string = builtInCatalogDir): Provider[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const entries = files.map((file) => {
    try {
      return JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
    } catch (error) {
      throw new CatalogError([`${file}: ${error instanceof Error ? error.message : String(error)}`]);
    }
  });
  const providers = parseProviders(entries, dir, (_entry, i) => files[i] ?? '');
  files.forEach((file, i) => {
    const name = providers[i]?.name;
    if (`${name}.json` !== file) throw new CatalogError([`${file}: file name must be "${name}.json"`]);
  });
  return providers;
}

/** The built-in catalog with `extra` entries added or overriding by name. */
export function createCatalog(extra: readonly unknown[] = [], base: Provider[] = readCatalogDir()): Catalog {
  const byName = new Map<string, Provider>();
  for (const p of base) byName.set(p.name, p);
  for (const p of parseProviders(extra, 'providers option')) byName.set(p.name, p);
  const sorted = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return {
    get: (name) => byName.get(name),
    list: () => sorted,
  };
}
