import { isLogLevel, type LogLevel } from '../../lib/http/logger.js';

/** One environment's settings, as the standalone server reads them. */
export interface EnvironmentConfig {
  name: string;
  /** Undefined: none set; the server uses a development key (kept beside a SQLite store). */
  secretKey: string | undefined;
  webhookUrl: string | undefined;
  webhookSecondaryUrl: string | undefined;
  webhookSigningKey: string | undefined;
  /** SERVICE_LOGGER_LEVEL: lowest script log level stored (default warn). */
  scriptLogLevel: LogLevel | undefined;
}

type Get = (name: string) => string | undefined;

/** `prod` → `PROD`, `eu-west` → `EU_WEST`: the suffix of an environment's own variables. */
export const variableSuffix = (environment: string) => environment.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/**
 * A per-environment variable: `<NAME>_<ENV>` first, then `<NAME>` for every environment.
 * `singleOnly`: `<NAME>` alone applies only when there is one environment (secret keys, which
 * must differ); with several, setting it is a mistake worth naming.
 */
export function perEnvironment(
  get: Get,
  name: string,
  environment: string,
  environments: readonly string[],
  problems: string[],
  singleOnly = false,
): { variable: string; value: string | undefined } {
  const own = `${name}_${variableSuffix(environment)}`;
  const value = get(own);
  if (value !== undefined) return { variable: own, value };
  if (singleOnly && environments.length > 1) {
    if (get(name) !== undefined && environment === environments[0]) {
      problems.push(
        `${name}: with several environments (${environments.join(', ')}) set ${environments.map((e) => `${name}_${variableSuffix(e)}`).join(', ')} instead`,
      );
    }
    return { variable: own, value: undefined };
  }
  return { variable: name, value: get(name) };
}

const isUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

const namePattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** SERVICE_ENVIRONMENTS (default `dev`) and each environment's variables; problems are listed, not thrown. */
export function readEnvironments(get: Get, problems: string[]): EnvironmentConfig[] {
  const names = (get('SERVICE_ENVIRONMENTS') ?? 'dev')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0) problems.push('SERVICE_ENVIRONMENTS: name at least one environment, e.g. dev,prod');
  for (const name of names) {
    if (!namePattern.test(name))
      problems.push(`SERVICE_ENVIRONMENTS: "${name}" must be lower-case letters, digits, - or _`);
  }
  if (new Set(names.map(variableSuffix)).size !== names.length)
    problems.push(`SERVICE_ENVIRONMENTS: "${names.join(',')}" names an environment twice`);

  return names.map((name) => {
    const read = (variable: string, singleOnly = false) =>
      perEnvironment(get, variable, name, names, problems, singleOnly);
    const key = read('SERVICE_SECRET_KEY', true);
    if (key.value !== undefined && key.value.length < 16)
      problems.push(`${key.variable}: must be at least 16 characters`);
    const url = (variable: string) => {
      const found = read(variable);
      if (found.value !== undefined && !isUrl(found.value))
        problems.push(`${found.variable}: "${found.value}" is not an http(s) URL`);
      return found.value;
    };
    const signing = read('SERVICE_WEBHOOK_SIGNING_KEY');
    if (signing.value !== undefined && signing.value.length < 16)
      problems.push(`${signing.variable}: must be at least 16 characters`);
    const level = read('SERVICE_LOGGER_LEVEL');
    if (level.value !== undefined && !isLogLevel(level.value))
      problems.push(`${level.variable}: "${level.value}" must be debug, info, warn or error`);
    return {
      name,
      secretKey: key.value,
      webhookUrl: url('SERVICE_WEBHOOK_URL'),
      webhookSecondaryUrl: url('SERVICE_WEBHOOK_SECONDARY_URL'),
      webhookSigningKey: signing.value,
      scriptLogLevel: level.value as LogLevel | undefined,
    };
  });
}
