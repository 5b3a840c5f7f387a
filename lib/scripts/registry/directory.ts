import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A script module found on disk, enabled for the integration its folder names. */
export interface FoundScript {
  integration: string;
  name: string;
  file: string;
}

const scriptExtensions = new Set(['.js', '.mjs', '.cjs']);
/** Sub-folders of an integration folder that hold scripts; any other folder is free for helpers. */
const scriptFolders = new Set(['', 'syncs', 'actions', 'on-events']);

/** Spec 9: the YAML configuration file is unsupported since 1 Dec 2025. */
export function legacyFormatMessage(where: string): string {
  return (
    `${where}: the YAML script configuration format is no longer supported (deprecated 21 Jul 2025, removed 1 Dec 2025). ` +
    'Define each script as a module whose default export is createSync({ models, frequency, exec }) or ' +
    'createAction({ input, output, exec }) (zod 4 schemas), imported from the package, and compile it to JavaScript.'
  );
}

const isYaml = (name: string) => /\.ya?ml$/i.test(name);

/**
 * Reads a scripts directory laid out `<integration unique key>/[syncs|actions|on-events/]<name>.js`.
 * Throws, listing every problem, when it holds the removed YAML configuration.
 */
export function readScriptsDirectory(dir: string): FoundScript[] {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`scripts directory ${dir} does not exist`);
  const found: FoundScript[] = [];
  const legacy: string[] = [];
  for (const top of readdirSync(dir, { withFileTypes: true })) {
    if (top.isFile() && isYaml(top.name)) legacy.push(top.name);
    if (!top.isDirectory() || top.name.startsWith('.') || top.name === 'node_modules') continue;
    const integrationDir = join(dir, top.name);
    for (const folder of scriptFolders) {
      const path = join(integrationDir, folder);
      if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) continue;
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (!entry.isFile()) continue;
        if (isYaml(entry.name)) legacy.push(relative(dir, join(path, entry.name)));
        const ext = extname(entry.name);
        if (!scriptExtensions.has(ext) || entry.name.startsWith('.') || entry.name.startsWith('_')) continue;
        found.push({
          integration: top.name,
          name: basename(entry.name, ext),
          file: pathToFileURL(join(path, entry.name)).href,
        });
      }
    }
  }
  if (legacy.length > 0) throw new Error(legacyFormatMessage(`scripts directory ${dir} holds ${legacy.join(', ')}`));
  return found.sort((a, b) => a.file.localeCompare(b.file));
}
