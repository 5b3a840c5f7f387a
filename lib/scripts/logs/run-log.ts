import type { LogLevel } from '../../http/logger.js';
import { atOrAbove } from './levels.js';
import type { LogEntry, LogStore, RunSummary } from './log-store.js';

export interface RunLog {
  /** Kept when `level` is at or above the run's threshold; the gateway's own lines use warn/error. */
  write(level: LogLevel, message: string): void;
  /** Writes what is buffered; called at the end of the run (and along the way for long runs). */
  flush(): Promise<void>;
  readonly stored: number;
}

export interface RunLogOptions {
  threshold: LogLevel;
  /** Lines one run keeps at most; later ones are counted and reported once. Default 5,000. */
  maxEntries?: number;
  /** Buffered lines that trigger a write during the run. Default 200. */
  flushEvery?: number;
}

export function createRunLog(store: LogStore, environment: string, run: RunSummary, options: RunLogOptions): RunLog {
  const max = options.maxEntries ?? 5_000;
  const flushEvery = options.flushEvery ?? 200;
  const entries: LogEntry[] = [];
  let dropped = 0;
  let unflushed = 0;
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (unflushed === 0) return writing;
    unflushed = 0;
    const snapshot =
      dropped > 0
        ? [
            ...entries,
            {
              level: 'warn' as const,
              message: `${dropped} more log lines were dropped (limit ${max} per run)`,
              created_at: new Date().toISOString(),
            },
          ]
        : [...entries];
    // Writes are chained so a slow earlier write never overwrites a later, longer list.
    writing = writing.catch(() => {}).then(() => store.write(environment, run, snapshot));
    return writing;
  };

  return {
    write(level, message) {
      if (!atOrAbove(level, options.threshold)) return;
      if (entries.length >= max) dropped++;
      else entries.push({ level, message, created_at: new Date().toISOString() });
      unflushed++;
      if (unflushed >= flushEvery) void flush().catch(() => {});
    },
    flush,
    get stored() {
      return entries.length;
    },
  };
}
