import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
/** A node:util parseArgs option, with the line `--help` prints for it. */
type BenchOption = Options[string] & {
  /** What the option does, in one line: its unit, for instance (`--help` adds the accepted values and the default). */
  help: string;
} & (
    | { choices?: never; commaSeparated?: never }
    | {
        type: 'string';
        /**
         * The only values the option accepts: `--help` lists them, and any other is named in one line
         * and the bench exits with 2, before it starts anything.
         */
        choices: readonly string[];
        /**
         * The value is a comma-separated list (`sqlite,redis`), every item one of `choices`; the bench
         * is given it without spaces around the items.
         */
        commaSeparated?: boolean;
      }
  );
type BenchOptions = Record<string, BenchOption>;
// `help` and `choices` mean nothing to parseArgs: the values' types come from type, multiple and default alone.
type Values<O extends BenchOptions> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

/** What a command line asks of a bench: its options' values, `--help`'s text, or the one line saying what is wrong. */
export type ParsedBenchArgs<O extends BenchOptions> = { values: Values<O> } | { help: string } | { error: string };

/**
 * A bench's options, parsed by node:util. `--help` lists them, each with what it does, the values
 * it accepts where they are a set, and its default, and exits; an unknown or malformed option, or
 * a value outside an option's `choices`, is named in one line and the bench exits with 2, before
 * it starts anything (bench/README.md says more about each bench).
 */
export function benchArgs<O extends BenchOptions>(name: string, options: O): Values<O> {
  const parsed = parseBenchArgs(name, options, process.argv.slice(2));
  if ('help' in parsed) {
    console.log(parsed.help);
    process.exit(0);
  }
  if ('error' in parsed) {
    console.error(parsed.error);
    process.exit(2);
  }
  return parsed.values;
}

/** `benchArgs` without printing or exiting: what `argv` (the arguments after the script) asks for. */
export function parseBenchArgs<O extends BenchOptions>(name: string, options: O, argv: string[]): ParsedBenchArgs<O> {
  for (const [flag, o] of Object.entries(options))
    if (o.default !== undefined && unknownItem(o, o.default) !== undefined)
      throw new Error(`${name}: --${flag}'s default ${String(o.default)} is not in its choices`);
  if (argv.includes('--help') || argv.includes('-h'))
    return { help: `${name} [options]   (bench/README.md)\n${usage(options)}` };
  // parseArgs validates its option configs: it is given them without `help`, `choices` and `commaSeparated`.
  const configs: Options = Object.fromEntries(
    Object.entries(options).map(([flag, { help: _help, choices: _choices, commaSeparated: _list, ...config }]) => [
      flag,
      config,
    ]),
  );
  const wrong = (message: string) => ({ error: `${name}: ${message} (--help lists the options)` });
  let values: Values<O>;
  try {
    values = parseArgs({ args: argv, options: configs, strict: true }).values as Values<O>;
  } catch (error) {
    return wrong(error instanceof Error ? error.message : String(error));
  }
  const given = values as Record<string, unknown>;
  for (const [flag, o] of Object.entries(options)) {
    const choices = o.choices?.join(', ');
    for (const value of given[flag] === undefined ? [] : [given[flag]].flat()) {
      const item = unknownItem(o, value);
      if (item === undefined) continue;
      return wrong(
        o.commaSeparated
          ? `Unknown value '${item}' for option '--${flag}' (in '${String(value)}'); accepted values, comma-separated: ${choices}`
          : `Unknown value '${item}' for option '--${flag}'; accepted values: ${choices}`,
      );
    }
    // `sqlite, redis` is taken as `sqlite,redis`: a bench splits the value on commas alone.
    if (o.commaSeparated && given[flag] !== undefined)
      given[flag] = Array.isArray(given[flag])
        ? given[flag].map((v) => items(v).join(','))
        : items(given[flag]).join(',');
  }
  return { values };
}

/** A comma-separated value's items, without the spaces around them. */
const items = (value: unknown) =>
  String(value)
    .split(',')
    .map((item) => item.trim());

/** The first item of `value` (the whole of it, unless the option is comma-separated) not in the option's choices, if any. */
function unknownItem(o: BenchOption, value: unknown): string | undefined {
  const choices = o.choices;
  if (!choices) return undefined;
  for (const one of [value].flat()) {
    const item = (o.commaSeparated ? items(one) : [String(one)]).find((i) => !choices.includes(i));
    if (item !== undefined) return item;
  }
  return undefined;
}

/** One line per option: `  --flag <value>   what it does; one of: …   default …`, the descriptions aligned. */
function usage(options: BenchOptions): string {
  const lines = Object.entries(options).map(([flag, o]) => ({
    flag: `  ${o.short ? `-${o.short}, ` : ''}--${flag}${o.type === 'string' ? ' <value>' : ''}`,
    help:
      o.help +
      (o.choices ? `; ${o.commaSeparated ? 'comma-separated, each one of' : 'one of'}: ${o.choices.join(', ')}` : ''),
    fallback: o.default === undefined ? '' : `   default ${String(o.default)}`,
  }));
  const width = Math.max(0, ...lines.map((line) => line.flag.length));
  return lines.map((line) => `${line.flag.padEnd(width)}   ${line.help}${line.fallback}`).join('\n');
}
