import { GatewayError } from '../errors.js';
import { defaultScopeConflict, normalizeScopes, type Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';
import { fillTemplate } from './connection-config.js';

type OAuthClient = { client_id: string; client_secret: string; scopes: string[] };

/** The integration's OAuth client, or a clear error naming what the customer must configure. */
export function oauthClientOf(integration: Integration): OAuthClient {
  const c = integration.credentials;
  if (!c || c.type === 'APP') {
    throw new GatewayError('integration_credentials_missing', `Integration "${integration.unique_key}" has no OAuth client credentials yet: set client_id, client_secret and scopes with PATCH /integrations/${integration.unique_key}.`);
  }
  return { client_id: c.client_id, client_secret: c.client_secret, scopes: c.scopes ?? [] };
}

/**
 * Catalog default scopes plus the integration's. A `.default` scope next to resource-specific
 * scopes is refused here, before the end user is sent to a provider that would refuse it.
 */
export function scopesFor(provider: Provider, integration: Integration): string[] {
  const scopes = normalizeScopes([...(provider.default_scopes ?? []), ...oauthClientOf(integration).scopes]);
  const conflict = defaultScopeConflict(scopes);
  if (conflict) throw new GatewayError('invalid_scopes', conflict, { field: 'credentials.scopes' });
  return scopes;
}

function parseUrl(value: string, what: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url;
  } catch {
    // reported below
  }
  throw new GatewayError('invalid_provider_config', `The ${what} of this provider is not a usable URL.`);
}

export interface AuthorizationRequest {
  provider: Provider;
  integration: Integration;
  config: Record<string, string>;
  state: string;
  redirectUri: string;
  codeChallenge?: string | undefined;
}

/** The provider's consent page for the authorization code flow. */
export function authorizationUrl(req: AuthorizationRequest): string {
  const { provider, config } = req;
  const url = parseUrl(fillTemplate(provider.authorization_url ?? '', config), 'authorization URL');
  for (const [name, value] of Object.entries(provider.authorization_params ?? {})) url.searchParams.set(name, fillTemplate(value, config));
  const scopes = scopesFor(provider, req.integration);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', oauthClientOf(req.integration).client_id);
  url.searchParams.set('redirect_uri', req.redirectUri);
  if (scopes.length > 0) url.searchParams.set('scope', scopes.join(provider.scope_separator ?? ' '));
  url.searchParams.set('state', req.state);
  if (req.codeChallenge) {
    url.searchParams.set('code_challenge', req.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

/** The tenant-wide admin consent page (directory suite application permissions, spec 5.1.2). */
export function adminConsentUrl(req: AuthorizationRequest): string {
  const { provider, config } = req;
  const url = parseUrl(fillTemplate(provider.admin_consent_url ?? '', config), 'admin consent URL');
  const scopes = scopesFor(provider, req.integration);
  url.searchParams.set('client_id', oauthClientOf(req.integration).client_id);
  if (scopes.length > 0) url.searchParams.set('scope', scopes.join(provider.scope_separator ?? ' '));
  url.searchParams.set('redirect_uri', req.redirectUri);
  url.searchParams.set('state', req.state);
  return url.toString();
}

/** The code-hosting app's installation page, e.g. `${app_link}/installations/new`, carrying our state. */
export function installationUrl(provider: Provider, integration: Integration, state: string): string {
  const c = integration.credentials;
  if (!c || c.type !== 'APP') {
    throw new GatewayError('integration_credentials_missing', `Integration "${integration.unique_key}" has no app credentials yet: set app_id, app_link and private_key with PATCH /integrations/${integration.unique_key}.`);
  }
  const template = provider.installation_url ?? '${app_link}/installations/new';
  const url = parseUrl(template.replace('${app_link}', c.app_link.replace(/\/+$/, '')), 'installation URL');
  url.searchParams.set('state', state);
  return url.toString();
}
