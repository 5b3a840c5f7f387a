import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import { parse } from 'yaml';

/** One script source: `<integration>/[syncs|actions|on-events/]<name>.ts`. */
export interface ScriptSource {
  integration: string;
  name: string;
  /** Absolute path. */
  file: string;
  /** Relative to the scripts folder, with `/` separators: how messages name it. */
  relative: string;
  /** The sub-folder it sits in (`''` for the integration folder itself). */
  folder: string;
}

export interface Problem {
  /** Relative to the scripts folder; empty for problems about the folder itself. */
  file: string;
  line?: number;
  column?: number;
  code?: string;
  message: string;
}

export type Discovery = { ok: true; scripts: ScriptSource[]; problems: Problem[] } | { ok: false; legacy: string[] };

// The same layout the gateway reads from SERVICE_SCRIPTS_DIR, with TypeScript sources.
const scriptFolders = ['', 'syncs', 'actions', 'on-events'];
const sourceExtensions = new Set(['.ts', '.mts', '.js', '.mjs']);
const isYaml = (name: string) => /\.ya?ml$/i.test(name);

/**
 * The removed script configuration: a YAML file named like it, or one declaring `integrations:`.
 * A scripts folder may be a project root, so other YAML (CI, compose files) is left alone.
 */
function isLegacyConfig(file: string): boolean {
  if (/^(nango|service|portico|scripts)\.ya?ml$/i.test(basename(file))) return true;
  try {
    const doc = parse(readFileSync(file, 'utf8')) as unknown;
    return doc !== null && typeof doc === 'object' && 'integrations' in doc;
  } catch {
    return false;
  }
}
/** The gateway's rules for names (deploy schema): what it would refuse, compile refuses first. */
export const integrationKey = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,99}$/;
export const scriptNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
const slash = (path: string) => path.split(sep).join('/');

/**
 * Finds every script of a scripts folder. Other folders of an integration (helpers, fixtures)
 * and files starting with `_` or `.` are not scripts; the scripts import them as they like.
 */
export function discoverScripts(dir: string, skip: readonly string[] = []): Discovery {
  const root = resolve(dir);
  const skipped = new Set(skip.map((p) => resolve(p)));
  const scripts: ScriptSource[] = [];
  const legacy: string[] = [];
  for (const top of readdirSync(root, { withFileTypes: true })) {
    if (top.isFile() && isYaml(top.name) && isLegacyConfig(join(root, top.name))) legacy.push(top.name);
    const integrationDir = join(root, top.name);
    if (!top.isDirectory() || top.name.startsWith('.') || top.name === 'node_modules' || skipped.has(integrationDir))
      continue;
    for (const folder of scriptFolders) {
      const path = join(integrationDir, folder);
      if (!isDir(path)) continue;
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const file = join(path, entry.name);
        if (isYaml(entry.name) && isLegacyConfig(file)) legacy.push(slash(relative(root, file)));
        const ext = extname(entry.name);
        if (!sourceExtensions.has(ext) || entry.name.endsWith('.d.ts') || /^[._]/.test(entry.name)) continue;
        scripts.push({
          integration: top.name,
          name: basename(entry.name, ext),
          file,
          relative: slash(relative(root, file)),
          folder,
        });
      }
    }
  }
  if (legacy.length > 0) return { ok: false, legacy: legacy.sort() };
  scripts.sort((a, b) => a.relative.localeCompare(b.relative));
  return { ok: true, scripts, problems: namingProblems(scripts) };
}

function namingProblems(scripts: readonly ScriptSource[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, string>();
  for (const s of scripts) {
    if (!integrationKey.test(s.integration)) {
      problems.push({
        file: s.relative,
        message: `the folder name "${s.integration}" is not an integration unique key (1-100 letters, digits, "_", "-" or ".")`,
      });
    }
    if (!scriptNamePattern.test(s.name)) {
      problems.push({
        file: s.relative,
        message: `the script name "${s.name}" must be 1-100 letters, digits, "_", "-" or "." (starting with a letter or digit)`,
      });
    }
    const key = `${s.integration}/${s.name}`;
    const first = seen.get(key);
    if (first)
      problems.push({
        file: s.relative,
        message: `integration "${s.integration}" already has a script "${s.name}" (${first}); script names are unique per integration`,
      });
    else seen.set(key, s.relative);
  }
  return problems;
}
