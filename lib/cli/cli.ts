import { helpText, parseCommandArgs, type Command } from './command.js';
import { compileCommand } from './commands/compile.js';
import { deployCommand } from './commands/deploy.js';
import { dryrunCommand } from './commands/dryrun.js';
import { initCommand } from './commands/init.js';
import { keysCommand } from './commands/keys.js';
import { storeCommand } from './commands/store.js';
import { CliError, exitCodes, usageError, type ExitCode } from './exit.js';
import { createReporter, type CliIo } from './io.js';
import { packageVersion } from './version.js';

export const commands: readonly Command[] = [
  initCommand,
  compileCommand,
  dryrunCommand,
  deployCommand,
  keysCommand,
  storeCommand,
];

export function mainHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return `Usage: portico <command> [options]

Writes, checks, tries and deploys Portico scripts (syncs and actions).

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n')}
  ${'help'.padEnd(width)}Show the help of a command: portico help <command> (or portico <command> --help)

Every command takes --json (one JSON document on stdout) and --help.
The gateway commands read SERVICE_BASE_URL and SERVICE_SECRET_KEY (or --url, --secret-key);
deploy reads SERVICE_DEPLOY_KEY first.

Exit codes:
  0  done
  1  the work failed: type or bundle errors, the old YAML format, a failed script run, a refused deploy
  2  usage error: unknown command or option, missing or malformed argument
  3  the gateway cannot be reached, or it refused the secret key
  4  a destructive deploy was not confirmed (nothing changed)

portico ${packageVersion()}
`;
}

/** Runs one command line; answers the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const [name, ...rest] = argv;
  const json = rest.includes('--json');
  const reporter = createReporter(io, json);
  try {
    if (name === undefined) {
      io.stderr(mainHelp());
      return exitCodes.usage;
    }
    if (name === '--help' || name === '-h') {
      io.stdout(mainHelp());
      return exitCodes.ok;
    }
    if (name === '--version' || name === '-v') {
      io.stdout(`${packageVersion()}\n`);
      return exitCodes.ok;
    }
    if (name === 'help') {
      const wanted = commands.find((c) => c.name === rest[0]);
      if (rest[0] !== undefined && !wanted)
        throw usageError(`Unknown command "${rest[0]}". Commands: ${commands.map((c) => c.name).join(', ')}.`);
      io.stdout(wanted ? helpText(wanted) : mainHelp());
      return exitCodes.ok;
    }
    const command = commands.find((c) => c.name === name);
    if (!command)
      throw usageError(
        `Unknown command "${name}". Commands: ${commands.map((c) => c.name).join(', ')} (portico --help).`,
      );
    const { values, positionals } = parseCommandArgs(command, [...rest]);
    if (values.help) {
      io.stdout(helpText(command));
      return exitCodes.ok;
    }
    return await command.run({ io, reporter: createReporter(io, values.json === true), values, positionals });
  } catch (error) {
    const failure =
      error instanceof CliError
        ? error
        : new CliError(
            exitCodes.failed,
            'unexpected',
            `Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          );
    if (reporter.json)
      reporter.result({ ok: false, error: { code: failure.code, message: failure.message, ...failure.details } });
    else io.stderr(`${failure.message}\n`);
    return failure.exitCode;
  }
}
