import type { Context } from 'koa';
import { GatewayError } from '../errors.js';
import { oauthClientOf, scopesFor } from './authorization-urls.js';
import { completeConnection } from './complete.js';
import { fillTemplate } from './connection-config.js';
import type { OAuthDeps } from './deps.js';
import type { Flow } from './flow.js';
import { providerRefusal, tokenFailure } from './provider-answer.js';
import { loadTarget, queryValue } from './request.js';
import { configFromTokenResponse, oauth2CredentialsFrom } from './token-credentials.js';
import { requestToken } from './token-request.js';

const filledParams = (params: Record<string, string> | undefined, config: Record<string, string>) =>
  Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, fillTemplate(v, config)]));

/** Authorization code flow: exchange the code (with the PKCE verifier) and store the tokens. */
export async function finishOAuth(deps: OAuthDeps, ctx: Context, flow: Flow): Promise<void> {
  const refusal = providerRefusal(ctx, deps.callbackUrl);
  if (refusal) throw refusal;
  const code = queryValue(ctx, 'code');
  if (!code) throw new GatewayError('authorization_failed', 'The provider returned neither a code nor an error.');
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const grant: Record<string, string> = {
    ...filledParams(provider.token_params, flow.connection_config),
    grant_type: 'authorization_code',
    code,
    redirect_uri: deps.callbackUrl,
  };
  if (flow.code_verifier) grant.code_verifier = deps.cipher.open<string>(flow.code_verifier);
  const outcome = await requestToken(deps.fetch, provider, fillTemplate(provider.token_url ?? '', flow.connection_config), oauthClientOf(integration), grant);
  if (!outcome.ok) throw tokenFailure(outcome, deps.callbackUrl);
  const credentials = oauth2CredentialsFrom(outcome.body);
  const config = { ...flow.connection_config, ...configFromTokenResponse(provider, outcome.body) };
  await completeConnection(deps, ctx, flow, credentials, config);
}

const sharedTenants = new Set(['common', 'organizations', 'consumers']);

/**
 * Admin consent (spec 5.1.2): an administrator granted the application permissions for the
 * whole tenant. The connection is the tenant: its first app-only token is obtained at once,
 * which proves the consent and the client secret work; later tokens come the same way.
 */
export async function finishAdminConsent(deps: OAuthDeps, ctx: Context, flow: Flow): Promise<void> {
  const refusal = providerRefusal(ctx, deps.callbackUrl);
  if (refusal) throw refusal;
  if ((queryValue(ctx, 'admin_consent') ?? '').toLowerCase() !== 'true') {
    throw new GatewayError('authorization_denied', 'The administrator did not grant consent for the organization.');
  }
  const tenant = queryValue(ctx, 'tenant') ?? '';
  if (!/^[A-Za-z0-9._-]{1,255}$/.test(tenant)) throw new GatewayError('authorization_failed', 'The provider returned no usable tenant.');
  const asked = flow.connection_config.tenant;
  if (asked && !sharedTenants.has(asked.toLowerCase()) && asked.toLowerCase() !== tenant.toLowerCase()) {
    throw new GatewayError('authorization_failed', `Consent was granted for tenant ${tenant}, but this link asked for tenant ${asked}.`);
  }
  const config = { ...flow.connection_config, tenant };
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const scopes = scopesFor(provider, integration);
  const grant: Record<string, string> = { ...filledParams(provider.token_params, config), grant_type: 'client_credentials' };
  if (scopes.length > 0) grant.scope = scopes.join(provider.scope_separator ?? ' ');
  const outcome = await requestToken(deps.fetch, provider, fillTemplate(provider.token_url ?? '', config), oauthClientOf(integration), grant);
  if (!outcome.ok) throw tokenFailure(outcome, deps.callbackUrl);
  const { access_token: token, expires_at } = oauth2CredentialsFrom(outcome.body);
  await completeConnection(deps, ctx, flow, { type: 'OAUTH2_CC', token, ...(expires_at ? { expires_at } : {}) }, config);
}
