import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { isLogLevel, type LogLevel } from '../../lib/http/logger.js';
import { defaultShutdownTimeoutMs } from './drain.js';

/** The standalone server's settings, read from the process environment in this one place. */
export interface StandaloneConfig {
  port: number;
  host: string;
  baseUrl: string;
  storeUrl: string;
  secretKey: string;
  /** True when no key was configured and one was generated for this run. */
  secretKeyGenerated: boolean;
  encryptionKey: string | undefined;
  providersFile: string | undefined;
  logLevel: LogLevel | 'silent';
  webhookUrl: string | undefined;
  webhookSecondaryUrl: string | undefined;
  webhookSigningKey: string | undefined;
  /** SERVICE_LOGGER_LEVEL: lowest script log level stored (default warn, spec 8). */
  scriptLogLevel: LogLevel | undefined;
  /** SERVICE_SCRIPTS_DIR: compiled scripts laid out `<integration>/<name>.js`. */
  scriptsDir: string | undefined;
  /** SERVICE_SHUTDOWN_TIMEOUT_MS: how long SIGTERM lets requests in flight finish (default 25 s). */
  shutdownTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const isUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** Validates every variable at once and lists every bad one. */
export function readConfig(env: NodeJS.ProcessEnv): Readonly<StandaloneConfig> {
  const problems: string[] = [];
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };

  const portText = get('PORT') ?? '3003';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) problems.push(`PORT: "${portText}" is not a port number (0-65535)`);

  const host = get('HOST') ?? '127.0.0.1';
  const baseUrl = (get('SERVICE_BASE_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  if (!isUrl(baseUrl)) problems.push(`SERVICE_BASE_URL: "${baseUrl}" is not an http(s) URL`);

  const storeUrl = get('SERVICE_STORE_URL') ?? 'sqlite://./data/portico.db';
  if (!/^(memory:\/\/|sqlite:\/\/.+|rediss?:\/\/.+)$/.test(storeUrl)) {
    problems.push(`SERVICE_STORE_URL: "${storeUrl}" must be sqlite://<path>, redis://<host>:<port> or memory://`);
  }

  const configuredKey = get('SERVICE_SECRET_KEY');
  if (configuredKey !== undefined && configuredKey.length < 16) problems.push('SERVICE_SECRET_KEY: must be at least 16 characters');

  const encryptionKey = get('SERVICE_ENCRYPTION_KEY');
  if (encryptionKey !== undefined) {
    for (const part of encryptionKey.split(',')) {
      const raw = part.includes(':') ? part.slice(part.indexOf(':') + 1) : part;
      if (Buffer.from(raw.trim(), 'base64').length !== 32) {
        problems.push('SERVICE_ENCRYPTION_KEY: each key must be 32 bytes in base64 (openssl rand -base64 32), optionally "id:key", comma-separated');
        break;
      }
    }
  } else if (/^rediss?:/.test(storeUrl)) {
    problems.push('SERVICE_ENCRYPTION_KEY: required with a Redis store (several instances must share the key)');
  }

  const logLevel = get('LOG_LEVEL') ?? 'info';
  if (!isLogLevel(logLevel) && logLevel !== 'silent') problems.push(`LOG_LEVEL: "${logLevel}" must be debug, info, warn, error or silent`);

  const webhookUrl = get('SERVICE_WEBHOOK_URL');
  if (webhookUrl !== undefined && !isUrl(webhookUrl)) problems.push(`SERVICE_WEBHOOK_URL: "${webhookUrl}" is not an http(s) URL`);
  const webhookSecondaryUrl = get('SERVICE_WEBHOOK_SECONDARY_URL');
  if (webhookSecondaryUrl !== undefined && !isUrl(webhookSecondaryUrl)) {
    problems.push(`SERVICE_WEBHOOK_SECONDARY_URL: "${webhookSecondaryUrl}" is not an http(s) URL`);
  }
  const webhookSigningKey = get('SERVICE_WEBHOOK_SIGNING_KEY');
  if (webhookSigningKey !== undefined && webhookSigningKey.length < 16) problems.push('SERVICE_WEBHOOK_SIGNING_KEY: must be at least 16 characters');

  const scriptLogLevel = get('SERVICE_LOGGER_LEVEL');
  if (scriptLogLevel !== undefined && !isLogLevel(scriptLogLevel)) problems.push(`SERVICE_LOGGER_LEVEL: "${scriptLogLevel}" must be debug, info, warn or error`);
  const scriptsDir = get('SERVICE_SCRIPTS_DIR');
  if (scriptsDir !== undefined && !statSync(scriptsDir, { throwIfNoEntry: false })?.isDirectory()) problems.push(`SERVICE_SCRIPTS_DIR: "${scriptsDir}" is not a directory`);

  const shutdownText = get('SERVICE_SHUTDOWN_TIMEOUT_MS') ?? String(defaultShutdownTimeoutMs);
  const shutdownTimeoutMs = Number(shutdownText);
  if (!/^\d+$/.test(shutdownText) || shutdownTimeoutMs > 600_000) problems.push(`SERVICE_SHUTDOWN_TIMEOUT_MS: "${shutdownText}" must be a number of milliseconds up to 600000`);

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port,
    host,
    baseUrl,
    storeUrl,
    secretKey: configuredKey ?? `sk_dev_${randomBytes(24).toString('base64url')}`,
    secretKeyGenerated: configuredKey === undefined,
    encryptionKey,
    providersFile: get('SERVICE_PROVIDERS_FILE'),
    logLevel: logLevel as LogLevel | 'silent',
    webhookUrl,
    webhookSecondaryUrl,
    webhookSigningKey,
    scriptLogLevel: scriptLogLevel as LogLevel | undefined,
    scriptsDir,
    shutdownTimeoutMs,
  });
}
