import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ScriptManifest } from '../../scripts/local.js';
import { elapsed } from '../io.js';
import { bundleScripts } from './bundle.js';
import { discoverScripts, type Problem, type ScriptSource } from './discover.js';
import { inspectBundle } from './inspect.js';
import { legacyRefusal } from './legacy.js';
import { scriptApiFiles } from './package-files.js';
import { typeCheck } from './typecheck.js';

/** One compiled script, ready to deploy. */
export interface CompiledScript {
  integration: string;
  name: string;
  type: ScriptManifest['type'];
  /** The source, relative to the scripts folder. */
  source: string;
  sourceFile: string;
  /** The bundle on disk (absolute). */
  file: string;
  bytes: number;
  /** sha256 of the bundle: what the gateway stores it under. */
  sha256: string;
  manifest: ScriptManifest;
  bundle: string;
}

export type CompileOutcome =
  | { ok: true; scripts: CompiledScript[] }
  | { ok: false; stage: 'legacy' | 'layout' | 'types' | 'bundle' | 'load'; problems: Problem[]; message: string };

export interface CompileOptions {
  root: string;
  outDir: string;
  /** Only these scripts (dry-run compiles one). */
  only?: (source: ScriptSource) => boolean;
  typecheck: boolean;
  sourcemap?: boolean;
  /** Writes `manifest.json` and removes bundles of scripts that are gone. */
  manifest: boolean;
  progress(message: string): void;
}

export const manifestFile = 'manifest.json';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const failed = (
  stage: Extract<CompileOutcome, { ok: false }>['stage'],
  message: string,
  problems: Problem[] = [],
): CompileOutcome => ({ ok: false, stage, message, problems });

/** Bundles a previous compile wrote that this one does not: a removed script leaves no stale file behind. */
function removeStale(outDir: string, kept: readonly CompiledScript[]): void {
  let previous: { scripts?: { file?: unknown }[] };
  try {
    previous = JSON.parse(readFileSync(join(outDir, manifestFile), 'utf8')) as typeof previous;
  } catch {
    return;
  }
  const keep = new Set(kept.map((s) => s.file));
  for (const entry of previous.scripts ?? []) {
    if (typeof entry.file !== 'string' || entry.file.startsWith('..') || !entry.file.endsWith('.mjs')) continue;
    const file = resolve(outDir, entry.file);
    if (!keep.has(file) && file.startsWith(resolve(outDir) + sep)) rmSync(file, { force: true });
  }
}

/** The type-check as a step of its own: deploy runs it after the plan is confirmed. */
export async function typeCheckStep(
  root: string,
  files: readonly string[],
  progress: (message: string) => void,
): Promise<Extract<CompileOutcome, { ok: false }> | null> {
  const started = performance.now();
  progress(`Type-checking ${files.length} script${files.length === 1 ? '' : 's'}…`);
  const problems = await typeCheck(root, files, scriptApiFiles());
  if (problems.length > 0) return { ok: false, stage: 'types', message: `Type errors: ${problems.length}.`, problems };
  progress(`  types ok (${elapsed(started)})`);
  return null;
}

/** Discover, type-check, bundle and load every script of a folder. */
export async function compileScripts(options: CompileOptions): Promise<CompileOutcome> {
  const { root, outDir, progress } = options;
  const found = discoverScripts(root, [outDir]);
  if (!found.ok)
    return failed(
      'legacy',
      legacyRefusal(root, found.legacy),
      found.legacy.map((file) => ({
        file,
        code: 'unsupported_script_format',
        message: 'the YAML script configuration is no longer supported',
      })),
    );
  const sources = found.scripts.filter((s) => options.only?.(s) ?? true);
  // A dry-run of one script is not held up by another script's naming problem.
  const naming = found.problems.filter((p) => sources.some((s) => s.relative === p.file));
  if (naming.length > 0) return failed('layout', 'The scripts folder has naming problems.', naming);
  if (sources.length === 0) {
    return failed(
      'layout',
      `No scripts in ${root}: expected <integration>/syncs/<name>.ts, <integration>/actions/<name>.ts (portico init writes an example of each).`,
    );
  }
  const api = scriptApiFiles();

  if (options.typecheck) {
    const failure = await typeCheckStep(
      root,
      sources.map((s) => s.file),
      progress,
    );
    if (failure) return failure;
  }

  const started = performance.now();
  progress(`Bundling ${sources.length} script${sources.length === 1 ? '' : 's'}…`);
  const bundled = await bundleScripts(root, outDir, sources, api, options.sourcemap ? { sourcemap: true } : {});
  if (!bundled.ok) return failed('bundle', `Bundle errors: ${bundled.problems.length}.`, bundled.problems);
  progress(`  bundled (${elapsed(started)})`);

  const scripts: CompiledScript[] = [];
  const problems: Problem[] = [];
  for (const [index, b] of bundled.bundles.entries()) {
    progress(`  [${index + 1}/${bundled.bundles.length}] loading ${b.source.relative}`);
    mkdirSync(dirname(b.outFile), { recursive: true });
    writeFileSync(b.outFile, b.code);
    const hash = sha256(b.code);
    const inspected = await inspectBundle(b.outFile, hash);
    if (!inspected.ok) {
      problems.push({ file: b.source.relative, message: inspected.message });
      continue;
    }
    scripts.push({
      integration: b.source.integration,
      name: b.source.name,
      type: inspected.manifest.type,
      source: b.source.relative,
      sourceFile: b.source.file,
      file: b.outFile,
      bytes: Buffer.byteLength(b.code),
      sha256: hash,
      manifest: inspected.manifest,
      bundle: b.code,
    });
  }
  if (problems.length > 0) return failed('load', `Scripts that do not load: ${problems.length}.`, problems);

  if (options.manifest) {
    removeStale(outDir, scripts);
    const listed = scripts.map(({ bundle: _bundle, sourceFile: _source, file, ...rest }) => ({
      ...rest,
      file: relative(outDir, file).split(sep).join('/'),
    }));
    writeFileSync(
      join(outDir, manifestFile),
      `${JSON.stringify({ compiled_at: new Date().toISOString(), scripts: listed }, null, 2)}\n`,
    );
  }
  return { ok: true, scripts };
}
