import { fail } from '../errors.js';
import type { CredentialTarget } from './resolver.js';
import { fillConnectionTemplate } from '../providers/index.js';
import type { TokenRequest } from './token-endpoint.js';

export interface OAuthClient {
  client_id: string;
  client_secret: string;
  scopes: string[];
}

/** The integration's OAuth client; the customer must have set it before tokens can be renewed. */
export function oauthClientOf(target: CredentialTarget): OAuthClient {
  const c = target.integration.credentials;
  if (c && (c.type === 'OAUTH2' || c.type === 'OAUTH2_CC')) return { client_id: c.client_id, client_secret: c.client_secret, scopes: c.scopes };
  return fail('integration_credentials_missing', `Integration "${target.integration.unique_key}" has no OAuth client ID and secret, which renewing tokens needs. Set them with PATCH /integrations/${target.integration.unique_key}.`);
}

const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

/**
 * A token request to the catalog's token URL: the grant's fields, the catalog's `token_params`
 * (placeholders filled), and the client authenticated in the body (default) or with HTTP basic
 * (`token_request_auth: basic`; RFC 6749 2.3.1 form-encodes id and secret first).
 */
export function oauthTokenRequest(target: CredentialTarget, grant: Record<string, string>, timeoutMs: number): TokenRequest {
  const { provider, connection } = target;
  if (!provider.token_url) fail('invalid_provider_config', `Provider "${provider.name}" has no token_url.`);
  const client = oauthClientOf(target);
  const extras = Object.fromEntries(Object.entries(provider.token_params ?? {})
    .map(([name, value]) => [name, fillConnectionTemplate(value, connection, provider)]));
  const form: Record<string, string> = { ...extras, ...grant };
  const headers: Record<string, string> = {};
  if (provider.token_request_auth === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${formEncode(client.client_id)}:${formEncode(client.client_secret)}`).toString('base64')}`;
  } else {
    form.client_id = client.client_id;
    form.client_secret = client.client_secret;
  }
  return { url: fillConnectionTemplate(provider.token_url as string, connection, provider), headers, form, timeoutMs };
}

/** `expires_in` (seconds, number or numeric string) as an ISO timestamp; undefined when absent. */
export function expiresAtFrom(expiresIn: unknown, now: number): string | undefined {
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  return new Date(now + seconds * 1000).toISOString();
}

/** The token answer minus the tokens themselves, kept as `raw` (e.g. Salesforce's `instance_url`). */
export function rawWithoutTokens(body: Record<string, unknown>): Record<string, unknown> {
  const { access_token: _a, refresh_token: _r, id_token: _i, ...rest } = body;
  return rest;
}
