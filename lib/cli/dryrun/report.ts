import { relative, sep } from 'node:path';
import type { DryRunLog, DryRunResult } from './run.js';

/** A log line as it streams during the run (stderr). */
export const logLine = (log: DryRunLog) => `[${log.at.slice(11, 23)}] ${log.level.padEnd(5)} ${log.message}`;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The stack lines that point into the scripts folder (source-mapped to the .ts files). */
function scriptFrames(stack: string | undefined, root: string): string[] {
  return (stack ?? '')
    .split('\n')
    .filter((line) => line.includes(root))
    .map((line) => `    ${line.trim().replace(root + sep, '')}`)
    .slice(0, 5);
}

/** The result for a person (stdout): records or output, summary, what was not saved. */
export function dryRunText(result: DryRunResult, options: { cwd: string; root: string; label: string }): string {
  const lines: string[] = [];
  if (result.records) {
    lines.push('Records (not saved):');
    for (const [model, c] of Object.entries(result.records)) {
      lines.push(`  ${model}: ${plural(c.records.length, 'record')}`);
      for (const record of c.records) lines.push(`    ${JSON.stringify(record)}`);
      if (c.deletedIds.length > 0) lines.push(`    deleted ids: ${c.deletedIds.join(', ')}`);
    }
    lines.push('', 'Summary (what a real run would change):');
    for (const [model, c] of Object.entries(result.records)) {
      lines.push(
        `  ${model}: ${c.added} added, ${c.updated} updated, ${c.deleted} deleted${c.unchanged ? `, ${c.unchanged} unchanged` : ''}`,
      );
    }
  }
  if (result.type === 'action' && result.ok) {
    lines.push(`Output (${result.outputBytes} bytes):`, JSON.stringify(result.output, null, 2));
  }
  if (result.checkpoint) lines.push('', `Checkpoint (not saved): ${JSON.stringify(result.checkpoint)}`);
  for (const write of result.metadataWrites)
    lines.push('', `Metadata ${write.mode} (not saved): ${JSON.stringify(write.metadata)}`);
  if (result.responses.length > 0) {
    lines.push(
      '',
      `Provider responses saved (${result.responses.length}):`,
      ...result.responses.map((f) => `  ${relative(options.cwd, f).split(sep).join('/')}`),
    );
  }
  lines.push('');
  const took = `${result.durationMs} ms, ${plural(result.proxyCalls, 'proxied call')}, ${plural(result.logs.length, 'log line')}`;
  if (result.ok) {
    lines.push(`Dry run of ${options.label} succeeded (${took}). Nothing was saved.`);
  } else {
    const e = result.error;
    lines.push(`Dry run of ${options.label} failed (${took}): ${e?.code}: ${e?.message}`);
    if (e?.payload !== undefined) lines.push(`  payload: ${JSON.stringify(e.payload)}`);
    lines.push(...scriptFrames(e?.stack, options.root));
    lines.push('Nothing was saved.');
  }
  return lines.join('\n');
}

/** The result for machines (`--json`). */
export function dryRunJson(result: DryRunResult, meta: { integration: string; script: string; connectionId: string }) {
  const { error, ...rest } = result;
  return {
    ...meta,
    ...rest,
    summary: result.records
      ? Object.fromEntries(
          Object.entries(result.records).map(([m, c]) => [
            m,
            { added: c.added, updated: c.updated, deleted: c.deleted, unchanged: c.unchanged },
          ]),
        )
      : null,
    error: error
      ? {
          code: error.code,
          message: error.message,
          ...(error.field ? { field: error.field } : {}),
          ...(error.payload !== undefined ? { payload: error.payload } : {}),
        }
      : null,
  };
}
