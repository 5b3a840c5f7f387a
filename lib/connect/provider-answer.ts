import type { Context } from 'koa';
import { GatewayError } from '../errors.js';
import type { Provider } from '../providers/index.js';
import {
  callTokenEndpoint,
  oauthTokenRequest,
  type OAuthClientSecret,
  type TokenEndpointOutcome,
} from '../providers/protocol/index.js';
import { queryValue } from './request.js';

/** The end user waits on the callback page while the provider answers. */
const tokenTimeoutMs = 15_000;

const clip = (value: string) => value.slice(0, 300);
const mentionsRedirect = (text: string) => /redirect_uri|redirect uri|reply url|AADSTS50011/i.test(text);

/** The provider's `error=` on the way back, in terms the customer and the end user can act on. */
export function providerRefusal(ctx: Context, callbackUrl: string): GatewayError | undefined {
  const error = queryValue(ctx, 'error');
  if (!error) return undefined;
  const description = clip(queryValue(ctx, 'error_description') ?? '');
  const details = { provider_error: { error: clip(error), description } };
  const said = description ? `: ${description}` : '';
  if (error === 'access_denied' || error === 'consent_required') {
    return new GatewayError(
      'authorization_denied',
      `Access was not granted at the provider (${clip(error)})${said}`,
      details,
    );
  }
  if (mentionsRedirect(error) || mentionsRedirect(description)) {
    return new GatewayError(
      'wrong_redirect',
      `The provider refused the redirect URI (${clip(error)})${said}. Register ${callbackUrl} as the app's redirect URI.`,
      details,
    );
  }
  return new GatewayError('authorization_failed', `The provider reported an error (${clip(error)})${said}`, details);
}

/** A failed token request as the error the customer sees, with the provider's own words. */
export function tokenFailure(outcome: Exclude<TokenEndpointOutcome, { ok: true }>, callbackUrl: string): GatewayError {
  if (outcome.reason === 'unavailable') {
    return new GatewayError(
      'token_exchange_failed',
      `The token exchange with the provider failed: ${outcome.detail}. Start again.`,
    );
  }
  const details = { provider_error: { error: outcome.error, description: outcome.description } };
  const said = outcome.description ? `: ${outcome.description}` : '';
  if (mentionsRedirect(outcome.description)) {
    return new GatewayError(
      'wrong_redirect',
      `The provider refused the token exchange because of the redirect URI (${outcome.error})${said}. Register ${callbackUrl} as the app's redirect URI.`,
      details,
    );
  }
  return new GatewayError(
    'token_exchange_failed',
    `The provider refused the token exchange (${outcome.error})${said}`,
    details,
  );
}

/** POSTs a grant to a token URL, the client authenticated as the catalog says: the answer, or the error the customer sees. */
export async function grantToken(
  deps: { fetch: typeof fetch; callbackUrl: string },
  provider: Provider,
  url: string,
  client: OAuthClientSecret,
  grant: Record<string, string>,
): Promise<Record<string, unknown>> {
  const request = oauthTokenRequest({
    url,
    client,
    auth: provider.token_request_auth,
    grant,
    timeoutMs: tokenTimeoutMs,
  });
  const outcome = await callTokenEndpoint(deps.fetch, request);
  if (!outcome.ok) throw tokenFailure(outcome, deps.callbackUrl);
  return outcome.body;
}
