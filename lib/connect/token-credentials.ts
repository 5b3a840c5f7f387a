import type { OAuth2Credentials } from '../connections/index.js';
import { GatewayError } from '../errors.js';
import type { Provider } from '../providers/index.js';
import { expiresAtFrom, isSafeConfigValue } from '../providers/protocol/index.js';

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** An authorization-code token answer as OAUTH2 credentials; the rest of the answer is kept in `raw`. */
export function oauth2CredentialsFrom(body: Record<string, unknown>): OAuth2Credentials {
  const accessToken = str(body.access_token);
  if (!accessToken) {
    throw new GatewayError('token_exchange_failed', 'The provider answered the token request without an access_token.');
  }
  const { access_token: _a, refresh_token: _r, ...raw } = body;
  const refreshToken = str(body.refresh_token);
  const expires = expiresAtFrom(body.expires_in, Date.now());
  const tokenType = str(body.token_type);
  const scope = str(body.scope);
  return {
    type: 'OAUTH2',
    access_token: accessToken,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...(expires ? { expires_at: expires } : {}),
    ...(tokenType ? { token_type: tokenType } : {}),
    ...(scope ? { scope } : {}),
    raw,
  };
}

const hostPattern = /^[A-Za-z0-9.-]{1,253}$/;

/**
 * Connection config the catalog takes from the token answer (`token_response_config`), e.g.
 * Salesforce's `instance_url` host, which every later API call goes to.
 */
export function configFromTokenResponse(provider: Provider, body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, rule] of Object.entries(provider.token_response_config ?? {})) {
    const value = str(body[rule.from]);
    if (value === undefined) continue;
    if (rule.part === 'host') {
      let host: string;
      try {
        const url = new URL(value);
        if (url.protocol !== 'https:') throw new Error('not https');
        host = url.host;
      } catch {
        throw new GatewayError('token_exchange_failed', `The provider's ${rule.from} is not an https URL.`);
      }
      if (!hostPattern.test(host))
        throw new GatewayError('token_exchange_failed', `The provider's ${rule.from} has an unusable host.`);
      out[name] = host;
    } else if (isSafeConfigValue(value)) {
      out[name] = value;
    }
  }
  return out;
}
