import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { legacyFormatMessage } from '../../scripts/local.js';

type Yaml = Record<string, unknown>;
const asMap = (value: unknown): Yaml =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Yaml) : {};

/** A sketch of a YAML model as a zod schema, so moving starts from something that compiles. */
function zodSketch(fields: Yaml): string {
  const kind = (type: unknown): string => {
    const t = String(type)
      .replace(/\s*\|\s*(null|undefined)$/, '')
      .trim();
    if (/^(string|date|Date)$/.test(t)) return 'z.string()';
    if (/^number$/.test(t)) return 'z.number()';
    if (/^boolean$/.test(t)) return 'z.boolean()';
    if (/\[\]$/.test(t)) return 'z.array(z.unknown())';
    return 'z.unknown()';
  };
  const parts = Object.entries(fields).map(([name, type]) => {
    const optional = name.endsWith('?') || /\|\s*(null|undefined)\s*$/.test(String(type));
    return `${JSON.stringify(name.replace(/\?$/, ''))}: ${kind(type)}${optional ? '.optional()' : ''}`.replace(
      /^"([A-Za-z_$][\w$]*)":/,
      '$1:',
    );
  });
  return `z.object({ ${parts.join(', ')} })`;
}

/** What the old file declared, and where each piece goes in the current format. */
function hintsFor(dir: string, file: string): string[] {
  let doc: Yaml;
  try {
    doc = asMap(parse(readFileSync(join(dir, file), 'utf8')));
  } catch {
    return [];
  }
  const lines: string[] = [];
  for (const [integration, value] of Object.entries(asMap(doc.integrations))) {
    const kinds = asMap(value);
    for (const [name, sync] of Object.entries(asMap(kinds.syncs))) {
      const s = asMap(sync);
      const runs =
        s.runs === undefined ? '' : ` — frequency: '${String(s.runs)}' (written "every 30 minutes", "every hour"…)`;
      lines.push(
        `  sync ${integration}.${name}  →  ${integration}/syncs/${name}.ts: export default createSync({ models: { ${[s.output].flat().filter(Boolean).join(', ')} }, frequency, exec })${runs}`,
      );
    }
    for (const [name, action] of Object.entries(asMap(kinds.actions))) {
      const a = asMap(action);
      lines.push(
        `  action ${integration}.${name}  →  ${integration}/actions/${name}.ts: export default createAction({ input: ${a.input ?? 'z.object({})'}, output: ${a.output ?? 'z.unknown()'}, exec })`,
      );
    }
  }
  for (const [model, fields] of Object.entries(asMap(doc.models))) {
    lines.push(`  model ${model}  →  const ${model} = ${zodSketch(asMap(fields))};`);
  }
  return lines;
}

/** The refusal of the removed YAML configuration (spec 9), with the way to the current format. */
export function legacyRefusal(dir: string, files: readonly string[]): string {
  const hints = files.flatMap((file) => hintsFor(dir, file));
  return [
    legacyFormatMessage(files.join(', ')),
    '',
    'How to move:',
    '  1. Write one module per script: <integration>/syncs/<name>.ts exporting createSync, <integration>/actions/<name>.ts exporting createAction',
    "     (import { createSync, createAction } from 'portico/scripts'; import { z } from 'zod').",
    '  2. Write each model as a zod 4 schema with an id field; syncs list their models, actions their input and output schemas.',
    `  3. Delete ${files.join(', ')} and run portico compile. (portico init writes one example of each.)`,
    ...(hints.length > 0 ? ['', 'What the old file declares:', ...hints] : []),
  ].join('\n');
}
