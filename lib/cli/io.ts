import type { Readable } from 'node:stream';

/** Everything a command touches outside its arguments, passed in (tests and `main.ts` build it). */
export interface CliIo {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: Readable;
  /** A person is at the terminal (stdin and stderr are TTYs): prompts are possible. */
  interactive: boolean;
}

/**
 * How a command talks: progress lines go to stderr (so stdout stays the result, and `--json`
 * stdout stays one JSON document); results go to stdout, as text or as JSON.
 */
export interface Reporter {
  readonly json: boolean;
  /** A step that may take a while; silent under `--json`. */
  progress(message: string): void;
  /** A warning: always on stderr. */
  warn(message: string): void;
  /** Text meant for a person; silent under `--json`. */
  text(message: string): void;
  /** The machine result under `--json`. */
  result(value: unknown): void;
}

export function createReporter(io: CliIo, json: boolean): Reporter {
  return {
    json,
    progress(message) {
      if (!json) io.stderr(`${message}\n`);
    },
    warn(message) {
      io.stderr(`warning: ${message}\n`);
    },
    text(message) {
      if (!json) io.stdout(`${message}\n`);
    },
    result(value) {
      if (json) io.stdout(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}

/** Milliseconds as a person reads them. */
export const elapsed = (since: number) => {
  const ms = Math.round(performance.now() - since);
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
};

export const kilobytes = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);
