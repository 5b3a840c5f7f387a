import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

/**
 * A bench's options, parsed by node:util. `--help` lists them with their defaults and exits;
 * an unknown or malformed option is named in one line and the bench exits with 2, before it
 * starts anything (bench/README.md says what each one does).
 */
export function benchArgs<O extends Options>(name: string, options: O): Values<O> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(`${name} [options]   (bench/README.md)\n${usage(options)}`);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options, strict: true }).values as Values<O>;
  } catch (error) {
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)} (--help lists the options)`);
    process.exit(2);
  }
}

function usage(options: Options): string {
  return Object.entries(options)
    .map(([flag, o]) => {
      const takes = o.type === 'string' ? ' <value>' : '';
      const fallback = o.default === undefined ? '' : `   default ${String(o.default)}`;
      return `  --${flag}${takes}${fallback}`;
    })
    .join('\n');
}
