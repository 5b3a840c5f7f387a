// The log levels alone, with no logger attached: the script runtime (a separate process that
// may read nothing but its own bundled file) needs the names, not pino.
export const logLevels = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof logLevels)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (logLevels as readonly string[]).includes(value);
}
