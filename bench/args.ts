import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
/** A node:util parseArgs option, with the line `--help` prints for it. */
type BenchOption = Options[string] & {
  /** What the option does, in one line: its unit, and the values it accepts where they are a set. */
  help: string;
};
type BenchOptions = Record<string, BenchOption>;
// `help` means nothing to parseArgs: the values' types come from type, multiple and default alone.
type Values<O extends BenchOptions> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

/**
 * A bench's options, parsed by node:util. `--help` lists them, each with what it does and its
 * default, and exits; an unknown or malformed option is named in one line and the bench exits
 * with 2, before it starts anything (bench/README.md says more about each bench).
 */
export function benchArgs<O extends BenchOptions>(name: string, options: O): Values<O> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(`${name} [options]   (bench/README.md)\n${usage(options)}`);
    process.exit(0);
  }
  // parseArgs validates its option configs: it is given them without `help`.
  const configs: Options = Object.fromEntries(
    Object.entries(options).map(([flag, { help: _help, ...config }]) => [flag, config]),
  );
  try {
    return parseArgs({ args: argv, options: configs, strict: true }).values as Values<O>;
  } catch (error) {
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)} (--help lists the options)`);
    process.exit(2);
  }
}

/** One line per option: `  --flag <value>   what it does   default …`, the descriptions aligned. */
function usage(options: BenchOptions): string {
  const lines = Object.entries(options).map(([flag, o]) => ({
    flag: `  ${o.short ? `-${o.short}, ` : ''}--${flag}${o.type === 'string' ? ' <value>' : ''}`,
    help: o.help,
    fallback: o.default === undefined ? '' : `   default ${String(o.default)}`,
  }));
  const width = Math.max(0, ...lines.map((line) => line.flag.length));
  return lines.map((line) => `${line.flag.padEnd(width)}   ${line.help}${line.fallback}`).join('\n');
}
