import { statSync } from 'node:fs';
import { maskUrl } from './secrets.js';
import { isLogLevel, type LogLevel } from '../../lib/http/logger.js';
import { readEnvironments, variableSuffix, type EnvironmentConfig } from './environment-config.js';
import { defaultShutdownTimeoutMs } from './drain.js';
import { heapGrowingPercent as defaultHeapGrowingPercent } from '../../lib/runtime/index.js';

export type { EnvironmentConfig } from './environment-config.js';

/**
 * The standalone server's settings, read from the process environment in this one place.
 * Every variable starts with `SERVICE_`; `PORT`, `HOST` and `LOG_LEVEL` are read as fallbacks.
 */
export interface StandaloneConfig {
  port: number;
  host: string;
  /** SERVICE_BASE_URL; undefined: `http://localhost:<the port listened on>`. */
  baseUrl: string | undefined;
  storeUrl: string;
  /** SERVICE_ENVIRONMENTS (default `dev`), each with its own secret key and webhook settings. */
  environments: readonly EnvironmentConfig[];
  encryptionKey: string | undefined;
  providersFile: string | undefined;
  /** SERVICE_LOG_LEVEL (LOG_LEVEL still read): request and application logs. */
  logLevel: LogLevel | 'silent';
  /** SERVICE_LOG_FILE: append logs to this file instead of stdout. */
  logFile: string | undefined;
  /** SERVICE_SCRIPTS_DIR: compiled scripts laid out `<integration>/<name>.js`. */
  scriptsDir: string | undefined;
  /** SERVICE_METRICS_TOKEN: `GET /metrics` on the main port, behind this token. */
  metricsToken: string | undefined;
  /** SERVICE_METRICS_PORT: `GET /metrics` on a listener of its own (same host), no token. */
  metricsPort: number | undefined;
  /** SERVICE_DEPLOY_KEY: the default environment's deploy key (deploys then need it, not the secret key). */
  deployKey: string | undefined;
  /** SERVICE_DEPLOY_KEY_<ENV>: deploy keys by environment name (lower case). */
  deployKeys: Readonly<Record<string, string>>;
  /** SERVICE_DEPLOYS_DISABLED: names of the environments that refuse every deploy. */
  deploysDisabled: readonly string[];
  /** SERVICE_SHUTDOWN_TIMEOUT_MS: how long SIGTERM lets requests in flight finish (default 25 s). */
  shutdownTimeoutMs: number;
  /** SERVICE_HEAP_GROWING_PERCENT: V8's heap growth past each full collection (lib/runtime/heap-growth.ts); 0 leaves V8 its own heap heuristics (lib/runtime/index.ts). */
  heapGrowingPercent: number;
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
  /** `SERVICE_<name>`, else the older bare name; the problem names the one that was read. */
  const either = (name: string, fallback: string) => {
    const value = get(name);
    return value !== undefined
      ? { variable: name, value }
      : { variable: get(fallback) !== undefined ? fallback : name, value: get(fallback) };
  };
  const readPort = (found: { variable: string; value: string | undefined }, fallback: string | undefined) => {
    const text = found.value ?? fallback;
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text) || Number(text) > 65535)
      problems.push(`${found.variable}: "${text}" is not a port number (0-65535)`);
    return Number(text);
  };

  const port = readPort(either('SERVICE_PORT', 'PORT'), '3003') as number;
  const host = either('SERVICE_HOST', 'HOST').value ?? '127.0.0.1';
  const baseUrl = get('SERVICE_BASE_URL')?.replace(/\/+$/, '');
  if (baseUrl !== undefined && !isUrl(baseUrl)) problems.push(`SERVICE_BASE_URL: "${baseUrl}" is not an http(s) URL`);

  const storeUrl = get('SERVICE_STORE_URL') ?? 'sqlite://./data/portico.db';
  if (!/^(memory:\/\/|sqlite:\/\/.+|rediss?:\/\/.+|postgres(ql)?:\/\/.+)$/.test(storeUrl)) {
    problems.push(
      `SERVICE_STORE_URL: "${maskUrl(storeUrl)}" must be sqlite://<path>, redis://<host>:<port>, postgres://<host>:<port>/<database> or memory://`,
    );
  }
  // Shared stores: several instances must agree on keys, so nothing may be generated per process.
  const sharedStore = /^rediss?:/.test(storeUrl)
    ? 'Redis'
    : /^postgres(ql)?:/.test(storeUrl)
      ? 'PostgreSQL'
      : undefined;

  const environments = readEnvironments(get, problems);
  if (sharedStore) {
    for (const e of environments.filter((e) => e.secretKey === undefined)) {
      problems.push(
        `SERVICE_SECRET_KEY${environments.length > 1 ? `_${variableSuffix(e.name)}` : ''}: required with a ${sharedStore} store (several instances must share it)`,
      );
    }
  }

  const encryptionKey = get('SERVICE_ENCRYPTION_KEY');
  if (encryptionKey !== undefined) {
    for (const part of encryptionKey.split(',')) {
      const raw = part.includes(':') ? part.slice(part.indexOf(':') + 1) : part;
      if (Buffer.from(raw.trim(), 'base64').length !== 32) {
        problems.push(
          'SERVICE_ENCRYPTION_KEY: each key must be 32 bytes in base64 (openssl rand -base64 32), optionally "id:key", comma-separated',
        );
        break;
      }
    }
  } else if (sharedStore) {
    problems.push(
      `SERVICE_ENCRYPTION_KEY: required with a ${sharedStore} store (several instances must share the key)`,
    );
  }

  const level = either('SERVICE_LOG_LEVEL', 'LOG_LEVEL');
  const logLevel = level.value ?? 'info';
  if (!isLogLevel(logLevel) && logLevel !== 'silent')
    problems.push(`${level.variable}: "${logLevel}" must be debug, info, warn, error or silent`);
  const logFile = get('SERVICE_LOG_FILE');

  const scriptsDir = get('SERVICE_SCRIPTS_DIR');
  if (scriptsDir !== undefined && !statSync(scriptsDir, { throwIfNoEntry: false })?.isDirectory())
    problems.push(`SERVICE_SCRIPTS_DIR: "${scriptsDir}" is not a directory`);

  const metricsToken = get('SERVICE_METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16)
    problems.push('SERVICE_METRICS_TOKEN: must be at least 16 characters');
  const metricsPort = readPort({ variable: 'SERVICE_METRICS_PORT', value: get('SERVICE_METRICS_PORT') }, undefined);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port)
    problems.push(`SERVICE_METRICS_PORT: must differ from the gateway's port (${port})`);
  const deploy = readDeployKeys(env, problems);
  const shutdownText = get('SERVICE_SHUTDOWN_TIMEOUT_MS') ?? String(defaultShutdownTimeoutMs);
  const shutdownTimeoutMs = Number(shutdownText);
  if (!/^\d+$/.test(shutdownText) || shutdownTimeoutMs > 600_000)
    problems.push(`SERVICE_SHUTDOWN_TIMEOUT_MS: "${shutdownText}" must be a number of milliseconds up to 600000`);

  const growthText = get('SERVICE_HEAP_GROWING_PERCENT') ?? String(defaultHeapGrowingPercent);
  const heapGrowingPercent = Number(growthText);
  if (!/^\d+$/.test(growthText) || heapGrowingPercent > 1000)
    problems.push(`SERVICE_HEAP_GROWING_PERCENT: "${growthText}" must be a whole number from 0 (V8 decides) to 1000`);

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port,
    host,
    baseUrl,
    storeUrl,
    environments: Object.freeze(environments.map((e) => Object.freeze(e))),
    encryptionKey,
    providersFile: get('SERVICE_PROVIDERS_FILE'),
    logLevel: logLevel as LogLevel | 'silent',
    logFile,
    scriptsDir,
    metricsToken,
    metricsPort,
    ...deploy,
    shutdownTimeoutMs,
    heapGrowingPercent,
  });
}

/** SERVICE_DEPLOY_KEY, SERVICE_DEPLOY_KEY_<ENV> and SERVICE_DEPLOYS_DISABLED. */
function readDeployKeys(env: NodeJS.ProcessEnv, problems: string[]) {
  const deployKeys: Record<string, string> = {};
  let deployKey: string | undefined;
  for (const [name, raw] of Object.entries(env)) {
    const match = /^SERVICE_DEPLOY_KEY(?:_([A-Z0-9_-]+))?$/.exec(name);
    const value = raw?.trim();
    if (!match || !value) continue;
    if (value.length < 16) problems.push(`${name}: must be at least 16 characters`);
    if (match[1]) deployKeys[match[1].toLowerCase()] = value;
    else deployKey = value;
  }
  const deploysDisabled = (env.SERVICE_DEPLOYS_DISABLED ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  return { deployKey, deployKeys: Object.freeze(deployKeys), deploysDisabled: Object.freeze(deploysDisabled) };
}
