import type { ConnectionCredentials } from '../connections/index.js';
import { fingerprint } from './fingerprint.js';
import { oauthClientOf, oauthTokenRequest, rawWithoutTokens } from './oauth-client.js';
import { callTokenEndpoint, expiresAtFrom } from '../providers/protocol/index.js';
import type { TokenMode } from './token-mode.js';

type ClientCredentials = Extract<ConnectionCredentials, { type: 'OAUTH2_CC' }>;

export interface ClientCredentialsModeDeps {
  fetch: typeof fetch;
  now: () => number;
  bufferMs: number;
  timeoutMs: number;
}

/** OAUTH2_CC: a token for the integration's own client (RFC 6749 section 4.4), cached on the connection. */
export function createClientCredentialsMode(deps: ClientCredentialsModeDeps): TokenMode<ClientCredentials> {
  return {
    type: 'OAUTH2_CC',
    problemCode: 'token_refused',
    bufferMs: deps.bufferMs,
    token: (c) => c.token,
    expiresAt: (c) => c.expires_at,
    fingerprint(target) {
      const client = target.integration.credentials;
      const parts =
        client && client.type !== 'APP' ? [client.client_id, client.client_secret, client.scopes.join(' ')] : [];
      return fingerprint(
        'OAUTH2_CC',
        target.provider.token_url,
        JSON.stringify(target.connection.connection_config),
        ...parts,
      );
    },
    async obtain(target) {
      const { scopes } = oauthClientOf(target);
      const grant: Record<string, string> = { grant_type: 'client_credentials' };
      if (scopes.length > 0) grant.scope = scopes.join(target.provider.scope_separator ?? ' ');
      const outcome = await callTokenEndpoint(deps.fetch, oauthTokenRequest(target, grant, deps.timeoutMs));
      if (!outcome.ok) return outcome;
      const { body } = outcome;
      if (typeof body.access_token !== 'string' || body.access_token === '') {
        return {
          ok: false,
          reason: 'unavailable',
          status: outcome.status,
          detail: 'the token endpoint answered without an access_token',
        };
      }
      const expiresAt = expiresAtFrom(body.expires_in, deps.now());
      return {
        ok: true,
        credentials: {
          type: 'OAUTH2_CC',
          token: body.access_token,
          ...(expiresAt ? { expires_at: expiresAt } : {}),
          raw: rawWithoutTokens(body),
        },
      };
    },
    refusalMessage(target, outcome) {
      const why = outcome.description ? `${outcome.error}: ${outcome.description}` : outcome.error;
      return `The provider refused the client credentials of integration "${target.integration.unique_key}" (${why}). Check its client ID, secret and scopes.`;
    },
  };
}
