import { GatewayError } from '../errors.js';
import { defaultScopeConflict, normalizeScopes, type Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';
import { fillTemplate } from './connection-config.js';

type OAuthClient = { client_id: string; client_secret: string; scopes: string[] };

/** The integration's OAuth client, or a clear error naming what the customer must configure. */
export function oauthClientOf(integration: Integration): OAuthClient {
  const c = integration.credentials;
  if (!c || c.type === 'APP') {
    throw new GatewayError(
      'integration_credentials_missing',
      `Integration "${integration.unique_key}" has no OAuth client credentials yet: set client_id, client_secret and scopes with PATCH /integrations/${integration.unique_key}.`,
    );
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

export function parseUrl(value: string, what: string): URL {
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
  /** Scopes put before the catalog's and the integration's (OpenID `openid`). */
  extraScopes?: string[] | undefined;
  /** Extra parameters (OpenID `nonce`, `prompt`), set last. */
  extra?: Record<string, string> | undefined;
}

/** The provider's consent page for the authorization code flow. */
export function authorizationUrl(req: AuthorizationRequest): string {
  const { provider, config } = req;
  const url = parseUrl(fillTemplate(provider.authorization_url ?? '', config), 'authorization URL');
  for (const [name, value] of Object.entries(provider.authorization_params ?? {}))
    url.searchParams.set(name, fillTemplate(value, config));
  const scopes = [...(req.extraScopes ?? []), ...scopesFor(provider, req.integration)];
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', oauthClientOf(req.integration).client_id);
  url.searchParams.set('redirect_uri', req.redirectUri);
  if (scopes.length > 0) url.searchParams.set('scope', scopes.join(provider.scope_separator ?? ' '));
  url.searchParams.set('state', req.state);
  if (req.codeChallenge) {
    url.searchParams.set('code_challenge', req.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const [name, value] of Object.entries(req.extra ?? {})) url.searchParams.set(name, value);
  return url.toString();
}
