import { parseArgs } from 'node:util';
import { usageError, type ExitCode } from './exit.js';
import type { CliIo, Reporter } from './io.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Shown in the help after the name, e.g. `<folder>`. */
  value?: string;
  description: string;
}

export interface CommandContext {
  io: CliIo;
  reporter: Reporter;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** One `portico <name>` command: its arguments, its help, and what it does. */
export interface Command {
  name: string;
  summary: string;
  /** Positional arguments, e.g. `<script> <connection-id>`; `[x]` marks an optional one. */
  args: string;
  options: Record<string, OptionSpec>;
  /** Paragraphs after the options: what it does, examples, exit codes. */
  details: string;
  run(context: CommandContext): Promise<ExitCode>;
}

/** Options every command takes. */
export const commonOptions: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print one JSON document on stdout (no progress lines)' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** Options of the commands that talk to a gateway. */
export const gatewayOptions: Record<string, OptionSpec> = {
  url: { type: 'string', value: '<url>', description: 'where the gateway is mounted (default: $SERVICE_BASE_URL)' },
  'secret-key': {
    type: 'string',
    value: '<key>',
    description:
      "the environment's secret key (default: $SERVICE_SECRET_KEY; prefer the variable: flags show in process lists)",
  },
};

export const dirOption: OptionSpec = {
  type: 'string',
  value: '<folder>',
  description: 'the scripts folder (default: the current folder)',
};

export function allOptions(command: Command): Record<string, OptionSpec> {
  return { ...command.options, ...commonOptions };
}

/** Parses argv for one command; anything unexpected is a usage error (exit 2). */
export function parseCommandArgs(
  command: Command,
  argv: string[],
): { values: CommandContext['values']; positionals: string[] } {
  const options = Object.fromEntries(
    Object.entries(allOptions(command)).map(([name, o]) => [
      name,
      { type: o.type, ...(o.short ? { short: o.short } : {}) },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(`${error instanceof Error ? error.message : String(error)}\nSee: portico ${command.name} --help`);
  }
  const values = parsed.values as CommandContext['values'];
  if (values.help) return { values, positionals: parsed.positionals };
  const wanted = command.args.split(/\s+/).filter(Boolean);
  const required = wanted.filter((a) => a.startsWith('<')).length;
  if (parsed.positionals.length < required) {
    throw usageError(
      `portico ${command.name} needs ${wanted.filter((a) => a.startsWith('<')).join(' ')}.\nUsage: ${usageLine(command)}`,
    );
  }
  if (parsed.positionals.length > wanted.length) {
    throw usageError(`unexpected argument "${parsed.positionals[wanted.length]}".\nUsage: ${usageLine(command)}`);
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.type === 'string' && values[name] === '') throw usageError(`--${name} needs a value.`);
  }
  return { values, positionals: parsed.positionals };
}

export const usageLine = (command: Command) =>
  `portico ${command.name}${command.args ? ` ${command.args}` : ''} [options]`;

export function helpText(command: Command): string {
  const rows = Object.entries(allOptions(command)).map(
    ([name, o]) =>
      [`${o.short ? `-${o.short}, ` : '    '}--${name}${o.value ? ` ${o.value}` : ''}`, o.description] as const,
  );
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `Usage: ${usageLine(command)}`,
    '',
    command.summary,
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
    '',
    command.details.trim(),
    '',
  ].join('\n');
}
