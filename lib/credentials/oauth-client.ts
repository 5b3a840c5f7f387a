import { fail } from '../errors.js';
import type { CredentialTarget } from './resolver.js';
import { fillConnectionTemplate } from '../providers/index.js';
import { oauthTokenRequest as buildTokenRequest, type TokenRequest } from '../providers/protocol/index.js';

export interface OAuthClient {
  client_id: string;
  client_secret: string;
  scopes: string[];
}

/** The integration's OAuth client; the customer must have set it before tokens can be renewed. */
export function oauthClientOf(target: CredentialTarget): OAuthClient {
  const c = target.integration.credentials;
  if (c && (c.type === 'OAUTH2' || c.type === 'OAUTH2_CC'))
    return { client_id: c.client_id, client_secret: c.client_secret, scopes: c.scopes };
  return fail(
    'integration_credentials_missing',
    `Integration "${target.integration.unique_key}" has no OAuth client ID and secret, which renewing tokens needs. Set them with PATCH /integrations/${target.integration.unique_key}.`,
  );
}

/**
 * A token request to the catalog's token URL: the grant's fields, the catalog's `token_params`
 * (placeholders filled), and the client authenticated the way the catalog says.
 */
export function oauthTokenRequest(
  target: CredentialTarget,
  grant: Record<string, string>,
  timeoutMs: number,
): TokenRequest {
  const { provider, connection } = target;
  if (!provider.token_url) fail('invalid_provider_config', `Provider "${provider.name}" has no token_url.`);
  const extras = Object.fromEntries(
    Object.entries(provider.token_params ?? {}).map(([name, value]) => [
      name,
      fillConnectionTemplate(value, connection, provider),
    ]),
  );
  const url = fillConnectionTemplate(provider.token_url as string, connection, provider);
  return buildTokenRequest({
    url,
    client: oauthClientOf(target),
    auth: provider.token_request_auth,
    grant,
    extras,
    timeoutMs,
  });
}

/** The token answer minus the tokens themselves, kept as `raw` (e.g. Salesforce's `instance_url`). */
export function rawWithoutTokens(body: Record<string, unknown>): Record<string, unknown> {
  const { access_token: _a, refresh_token: _r, id_token: _i, ...rest } = body;
  return rest;
}
