// Variables holding a key or a URL that may carry a password: read once at start, then gone.
const secretVariable =
  /^SERVICE_(SECRET_KEY|DEPLOY_KEY|ENCRYPTION_KEY|WEBHOOK_SIGNING_KEY|STORE_URL|METRICS_TOKEN)(_[A-Z0-9_]+)?$/;

/**
 * Removes the keys from the process environment once the configuration holds them, so nothing
 * the gateway starts later (a child process, a library reading `process.env`) inherits them.
 * Returns the names removed.
 */
export function removeSecretVariables(env: NodeJS.ProcessEnv): string[] {
  const removed = Object.keys(env).filter((name) => secretVariable.test(name));
  for (const name of removed) delete env[name];
  return removed;
}

/** A store URL fit for a log line: the password (and a user name alone) replaced by `***`. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password && !parsed.username) return url;
    if (parsed.password) parsed.password = '***';
    else parsed.username = '***';
    return parsed.href;
  } catch {
    // Not a URL the parser takes: show the scheme only, never a part that may be a secret.
    return `${url.split(':', 1)[0]}://***`;
  }
}
