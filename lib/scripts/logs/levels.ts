import { isLogLevel, logLevels, type LogLevel } from '../../http/logger.js';

/** Spec 8 (in force since 1 Nov 2025): only warn and error are stored unless the minimum is lowered. */
export const defaultStoredLevel: LogLevel = 'warn';

export const atOrAbove = (level: LogLevel, threshold: LogLevel) =>
  logLevels.indexOf(level) >= logLevels.indexOf(threshold);

/** `SERVICE_LOGGER_LEVEL` and the per-environment option take exactly these values. */
export function parseStoredLevel(value: string, source: string): LogLevel {
  if (!isLogLevel(value)) throw new Error(`${source}: "${value}" must be one of ${logLevels.join(', ')}`);
  return value;
}

/**
 * The threshold of one run: the trigger's `log_level` wins, then the environment's level,
 * then the default (warn).
 */
export function runThreshold(perRun: LogLevel | undefined, environment: LogLevel | undefined): LogLevel {
  return perRun ?? environment ?? defaultStoredLevel;
}
