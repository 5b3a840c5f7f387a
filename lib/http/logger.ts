export const logLevels = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof logLevels)[number];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether a line at `level` would be written; a logger without it is taken to write every level. */
  enabled?(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level?: LogLevel | 'silent';
  /** Where lines go; one JSON document per call. Defaults to stdout. */
  write?: (line: string) => void;
}

// Field names whose values never reach a log line, whatever their nesting.
const secretField = /token|secret|password|authorization|api[-_]?key|private[-_]?key|credential|cookie|signature/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = secretField.test(key) ? '[redacted]' : redact(inner, depth + 1);
  }
  return out;
}

export function isLogLevel(value: string): value is LogLevel {
  return (logLevels as readonly string[]).includes(value);
}

/** Structured JSON logs, one line per call, secrets redacted by field name. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const threshold = level === 'silent' ? Infinity : logLevels.indexOf(level);
  const emit = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (logLevels.indexOf(at) < threshold) return;
    const extra = fields ? (redact(fields) as Record<string, unknown>) : {};
    write(JSON.stringify({ time: new Date().toISOString(), level: at, msg: message, ...extra }));
  };
  return {
    debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'),
    enabled: (at) => logLevels.indexOf(at) >= threshold,
  };
}
