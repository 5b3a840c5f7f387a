/** Scopes that sit beside any other, `.default` included (OpenID Connect and refresh). */
const neutralScopes = new Set(['openid', 'profile', 'email', 'offline_access']);

/**
 * The directory/productivity suite rejects `.default` together with resource-specific scopes;
 * we refuse such a set before any provider is contacted, in the provider's own words.
 */
export function defaultScopeConflict(scopes: readonly string[]): string | undefined {
  const hasDefault = scopes.some((s) => s === '.default' || s.endsWith('/.default'));
  const specific = scopes.filter((s) => !s.endsWith('.default') && !neutralScopes.has(s));
  if (hasDefault && specific.length > 0) {
    return (
      `The .default scope can't be combined with resource-specific scopes (${specific.join(', ')}). ` +
      'Use either the .default scope alone or explicit scopes alone.'
    );
  }
  return undefined;
}

/** Accepts an array or a comma/space-separated string. */
export function normalizeScopes(value: string | readonly string[] | undefined): string[] {
  const list = typeof value === 'string' ? value.split(/[\s,]+/) : [...(value ?? [])];
  return [...new Set(list.map((s) => s.trim()).filter(Boolean))];
}
