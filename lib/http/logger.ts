import { mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import { createLogBuffer } from './log-buffer.js';
import { requestLine, type RequestFields } from './request-line.js';
import { createRequestLines } from './request-lines.js';

import type { LogLevel } from './log-level.js';

export { isLogLevel, logLevels, type LogLevel } from './log-level.js';
export type { RequestFields, UpstreamFields } from './request-line.js';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether a line at `level` would be written; a logger without it is taken to write every level. */
  enabled?(level: LogLevel): boolean;
  /** Writes out what is buffered; call before the process exits. A logger without it buffers nothing. */
  flush?(): void;
  /**
   * The request log line, at info: fields the gateway builds itself (ids, method, path, statuses,
   * timings), none of them secret, so written without the redaction pass. A logger without it
   * gets `info('request', fields)`.
   */
  request?(fields: RequestFields): void;
}

export interface LoggerOptions {
  level?: LogLevel | 'silent';
  /**
   * Where lines go: `stdout` (default) or a file path, appended to. Lines are buffered and
   * written asynchronously; `flush()` writes out the rest.
   */
  destination?: 'stdout' | string;
  /** Receives each line instead (tests, custom sinks); one JSON document per call, no newline. */
  write?: (line: string) => void;
}

/**
 * Fields that may hold a secret, by path: at the top of a line's fields, and the request
 * headers one level down. Exact paths, compiled once by pino: a wildcard path (`*.token`)
 * costs about five times as much per line as the whole rest of the line, so none is used.
 * Code that logs must put nothing secret elsewhere (it logs ids, statuses, reasons).
 */
const secretNames = [
  'authorization',
  'cookie',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'secret',
  'client_secret',
  'password',
  'api_key',
  'apiKey',
  'private_key',
  'privateKey',
  'credentials',
  'signature',
  'secret_key',
];
export const redactedPaths = [
  ...secretNames,
  ...['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization'].map((h) => `headers["${h}"]`),
];

function openLogFile(path: string): number {
  mkdirSync(dirname(path), { recursive: true });
  return openSync(path, 'a');
}

/** Where lines go: pino's stream, the request line's way in, and the flush before exit. */
interface Destination {
  stream: DestinationStream;
  request: (fields: RequestFields) => void;
  flush: () => void;
}

function destinationOf(options: LoggerOptions): Destination {
  const write = options.write;
  if (write) {
    // A sink of the caller's gets each line as it is logged.
    const stream = { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) };
    return { stream, request: (fields) => stream.write(requestLine(fields)), flush: () => {} };
  }
  const target = options.destination ?? 'stdout';
  // Opened here, synchronously: lines written before an asynchronous open finished would wait on it.
  const sink = target === 'stdout' ? 'stdout' : { fd: openLogFile(target) };
  // The buffer writes out in chunks: request lines are formatted in batches before it does, and
  // before any other line, so the file keeps the order things were logged in (request-lines.ts).
  const buffer = createLogBuffer(sink, () => lines.flush());
  const lines = createRequestLines((line) => buffer.write(line));
  const stream = {
    write: (line: string) => {
      lines.flush();
      buffer.write(line);
    },
  };
  return { stream, request: (fields) => lines.add(fields), flush: () => buffer.flushSync() };
}

/** Structured JSON logs through pino: one line per call, secrets redacted by configured paths. */
export function createLogger(
  options: LoggerOptions = {},
): Logger & { flush(): void; request(fields: RequestFields): void } {
  const level = options.level ?? 'info';
  const out = destinationOf(options);
  const shape = {
    level,
    base: null,
    // Today's line shape: {"level":"info","time":"<ISO>",…,"msg":"…"}.
    formatters: { level: (label: string) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const log: Pino = pino({ ...shape, redact: { paths: redactedPaths, censor: '[redacted]' } }, out.stream);
  // The request line goes to the same destination, in the same shape, without pino's general
  // serializer and redaction pass (its fields are the gateway's own, none secret): request-line.ts.
  const requestsOn = log.isLevelEnabled('info');
  const emit = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (fields) log[at](fields, message);
    else log[at](message);
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    enabled: (at) => log.isLevelEnabled(at),
    request: (fields) => {
      if (requestsOn) out.request(fields);
    },
    flush: () => {
      out.flush();
    },
  };
}
