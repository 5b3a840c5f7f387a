/**
 * The CLI's exit codes (documented in `portico --help` and docs/cli.md). Scripts branch on
 * them, so they never change meaning.
 */
export const exitCodes = {
  /** Done. */
  ok: 0,
  /** The work failed: type or bundle errors, the old YAML format, a failed script run, a refused deploy. */
  failed: 1,
  /** The command line is wrong: unknown command or option, missing or malformed argument. */
  usage: 2,
  /** The gateway cannot be reached, or it refused the secret key. */
  gateway: 3,
  /** A destructive deploy was not confirmed; nothing changed. */
  notConfirmed: 4,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/** Ends a command with an exit code and a message for the user (and `details` for `--json`). */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(exitCode: ExitCode, code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.code = code;
    this.details = details;
  }
}

export const usageError = (message: string, details?: Record<string, unknown>) =>
  new CliError(exitCodes.usage, 'usage', message, details);
