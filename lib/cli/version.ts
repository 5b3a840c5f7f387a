import { readFileSync } from 'node:fs';

/** This package's version: the nearest package.json named portico above this file (sources or dist). */
export function packageVersion(): string {
  for (let url = new URL('../', import.meta.url); url.pathname !== '/'; url = new URL('../', url)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'portico' && pkg.version) return pkg.version;
    } catch {
      // Not here: one folder up.
    }
  }
  return 'unknown';
}
