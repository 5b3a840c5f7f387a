import { relative, sep } from 'node:path';
import { CliError, exitCodes } from '../exit.js';
import { kilobytes } from '../io.js';
import type { CompiledScript, CompileOutcome } from './compile.js';
import type { Problem } from './discover.js';

/** `file:line:column - error CODE: message`, the form editors and CI annotate from. */
export function formatProblem(p: Problem): string {
  const where = p.file ? `${p.file}${p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : ''}` : '';
  const what = `error${p.code ? ` ${p.code}` : ''}: ${p.message}`;
  return where ? `${where} - ${what}` : what;
}

/** A failed compile as the error that ends the command (exit 1), every problem listed. */
export function compileFailure(outcome: Extract<CompileOutcome, { ok: false }>): CliError {
  const lines =
    outcome.stage === 'legacy'
      ? [outcome.message]
      : [...outcome.problems.map(formatProblem), '', `Compile failed. ${outcome.message}`];
  return new CliError(
    exitCodes.failed,
    outcome.stage === 'legacy' ? 'unsupported_script_format' : `compile_${outcome.stage}`,
    lines.join('\n'),
    {
      stage: outcome.stage,
      problems: outcome.problems,
    },
  );
}

export function describeCompiled(s: CompiledScript): string {
  const m = s.manifest;
  if (s.type === 'sync')
    return `sync, models ${Object.keys(m.models ?? {}).join(', ')}, ${m.frequency}${m.syncType === 'incremental' ? ', incremental' : ''}`;
  if (s.type === 'on-event') return `on-event ${m.event ?? ''}`.trim();
  return 'action';
}

/** One line per bundle: source → bundle, what it is, its size. */
export function compiledLines(cwd: string, scripts: readonly CompiledScript[]): string[] {
  const rows = scripts.map(
    (s) => [s.source, relative(cwd, s.file).split(sep).join('/'), describeCompiled(s), kilobytes(s.bytes)] as const,
  );
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  return rows.map(([a, b, c, d]) => `  ${a.padEnd(w0)}  →  ${b.padEnd(w1)}  ${c} (${d})`);
}

/** What `--json` shows of a compiled script (not the bundle itself). */
export const compiledJson = (cwd: string, s: CompiledScript) => ({
  integration: s.integration,
  name: s.name,
  type: s.type,
  source: s.source,
  file: relative(cwd, s.file).split(sep).join('/'),
  bytes: s.bytes,
  sha256: s.sha256,
  manifest: s.manifest,
});
