import type { OAuth2Credentials } from '../connections/index.js';
import { fingerprint } from './fingerprint.js';
import { oauthTokenRequest, rawWithoutTokens } from './oauth-client.js';
import { callTokenEndpoint, expiresAtFrom } from '../providers/protocol/index.js';
import type { TokenMode } from './token-mode.js';

export interface OAuth2ModeDeps {
  fetch: typeof fetch;
  now: () => number;
  bufferMs: number;
  timeoutMs: number;
}

/** OAUTH2: refresh the access token with the refresh token (RFC 6749 section 6). */
export function createOAuth2Mode(deps: OAuth2ModeDeps): TokenMode<OAuth2Credentials> {
  return {
    type: 'OAUTH2',
    problemCode: 'refresh_refused',
    bufferMs: deps.bufferMs,
    token: (c) => c.access_token,
    expiresAt: (c) => c.expires_at,
    cannotObtain: (c) =>
      c.refresh_token
        ? undefined
        : `The access token of this connection expired${c.expires_at ? ` at ${c.expires_at}` : ''} and the connection holds no refresh token. Authorize the connection again or import new credentials.`,
    fingerprint(target, c) {
      const client = target.integration.credentials;
      const id = client && client.type !== 'APP' ? client.client_id : undefined;
      const secret = client && client.type !== 'APP' ? client.client_secret : undefined;
      return fingerprint('OAUTH2', target.provider.token_url, id, secret, c.refresh_token);
    },
    async obtain(target, c) {
      const request = oauthTokenRequest(
        target,
        { grant_type: 'refresh_token', refresh_token: c.refresh_token as string },
        deps.timeoutMs,
      );
      const outcome = await callTokenEndpoint(deps.fetch, request);
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
      // Providers that rotate refresh tokens send a new one; the others keep the old one valid.
      const refreshToken =
        typeof body.refresh_token === 'string' && body.refresh_token !== '' ? body.refresh_token : c.refresh_token;
      const credentials: OAuth2Credentials = {
        type: 'OAUTH2',
        access_token: body.access_token,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        ...(expiresAt ? { expires_at: expiresAt } : {}),
        ...(typeof body.token_type === 'string'
          ? { token_type: body.token_type }
          : c.token_type
            ? { token_type: c.token_type }
            : {}),
        ...(typeof body.scope === 'string' ? { scope: body.scope } : c.scope ? { scope: c.scope } : {}),
        raw: rawWithoutTokens(body),
      };
      return { ok: true, credentials };
    },
    refusalMessage(target, outcome) {
      const why = outcome.description ? `${outcome.error}: ${outcome.description}` : outcome.error;
      return `The provider refused to refresh the access token of connection "${target.connection.connection_id}" (${why}). The connection needs to be authorized again; it has not been deleted.`;
    },
  };
}
