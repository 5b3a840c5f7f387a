/** An isolated space with its own secret key: integrations, connections and records never cross it. */
export interface Environment {
  /** Short name, unique in the gateway (`dev`, `prod`, …). */
  name: string;
  /** The key callers present as `Authorization: Bearer <secret key>`. */
  secretKey: string;
  /**
   * A key for `POST /scripts/deploy` only (a CI job's). When set, deploys need it: the secret
   * key no longer deploys. Standalone: `SERVICE_DEPLOY_KEY` / `SERVICE_DEPLOY_KEY_<ENV>`.
   */
  deployKey?: string;
  /** True: this environment refuses every deploy (`SERVICE_DEPLOYS_DISABLED=prod`). */
  deploysDisabled?: boolean;
  /** Where webhooks to the customer go (optional). */
  webhookUrl?: string;
  webhookSecondaryUrl?: string;
  /** Key that signs webhooks to the customer; generated when absent. */
  webhookSigningKey?: string;
  /** Lowest script log level stored (debug, info, warn, error); default warn (spec 8). Standalone: `SERVICE_LOGGER_LEVEL`. */
  scriptLogLevel?: 'debug' | 'info' | 'warn' | 'error';
}

const namePattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function validateEnvironments(environments: readonly Environment[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  const keys = new Set<string>();
  if (environments.length === 0) problems.push('at least one environment is required');
  for (const env of environments) {
    if (!namePattern.test(env.name)) problems.push(`environment name "${env.name}" must match ${namePattern}`);
    if (names.has(env.name)) problems.push(`environment name "${env.name}" is used twice`);
    if (typeof env.secretKey !== 'string' || env.secretKey.length < 16) {
      problems.push(`environment "${env.name}": secret key must be at least 16 characters`);
    }
    if (keys.has(env.secretKey))
      problems.push(`environment "${env.name}": secret key is shared with another environment or key`);
    names.add(env.name);
    keys.add(env.secretKey);
    if (env.deployKey !== undefined) {
      if (typeof env.deployKey !== 'string' || env.deployKey.length < 16)
        problems.push(`environment "${env.name}": deploy key must be at least 16 characters`);
      else if (keys.has(env.deployKey))
        problems.push(`environment "${env.name}": deploy key must differ from every secret key and other deploy key`);
      keys.add(env.deployKey);
    }
  }
  return problems;
}
