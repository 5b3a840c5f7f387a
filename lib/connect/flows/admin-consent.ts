import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { GatewayError } from '../../errors.js';
import { issueBoundFlow } from '../browser-binding.js';
import { completeConnection } from '../complete.js';
import { fillTemplate } from '../connection-config.js';
import type { FlowDeps } from '../deps.js';
import type { Flow } from '../flow-store.js';
import { authorizationUrl, oauthClientOf, parseUrl, scopesFor } from '../oauth-client.js';
import { createPkcePair } from '../pkce.js';
import type { StartBase } from '../plan.js';
import { grantToken, providerRefusal } from '../provider-answer.js';
import { loadTarget, queryValue } from '../request.js';
import { oauth2CredentialsFrom } from '../token-credentials.js';
import { tenantFromIdToken } from './id-token.js';

/**
 * Admin consent (spec 5.1.2): an administrator grants application permissions for a whole
 * organization, and the connection holds app-only tokens for that tenant. The tenant is never
 * read from the way back (anyone can type a query string); it is either
 * - pinned by the customer's backend on the connect session: the consent page of that tenant,
 *   and tokens for that tenant only; or
 * - proven by the provider: an authorization code round with `openid` and `prompt=admin_consent`
 *   whose ID token (signature, audience, nonce, issuer) names the tenant.
 */

/** Refuses, before the session is spent, an integration that could not prove a tenant. */
export function checkAdminConsent(base: StartBase): void {
  if (base.pinned_tenant || (base.provider.id_token && base.provider.authorization_url)) return;
  throw new GatewayError(
    'tenant_not_proven',
    `Provider "${base.provider.name}" cannot prove the consenting tenant (no ID token settings): the connect session must pin it (tenant).`,
  );
}

/** Where the administrator goes: the pinned tenant's consent page, or the sign-in with admin consent. */
export async function startAdminConsent(
  deps: FlowDeps,
  ctx: Context,
  base: StartBase,
  flow: Omit<Flow, 'browser' | 'kind'>,
): Promise<string> {
  const { provider, integration } = base;
  const scopes = scopesFor(provider, integration);
  if (base.pinned_tenant) {
    const config = { ...base.connection_config, tenant: base.pinned_tenant };
    const state = await issueBoundFlow(deps, ctx, { ...flow, kind: 'admin_consent', connection_config: config });
    const url = parseUrl(fillTemplate(provider.admin_consent_url ?? '', config), 'admin consent URL');
    url.searchParams.set('client_id', oauthClientOf(integration).client_id);
    if (scopes.length > 0) url.searchParams.set('scope', scopes.join(provider.scope_separator ?? ' '));
    url.searchParams.set('redirect_uri', deps.callbackUrl);
    url.searchParams.set('state', state);
    return url.toString();
  }
  const nonce = randomBytes(24).toString('base64url');
  const pkce = createPkcePair();
  const state = await issueBoundFlow(deps, ctx, {
    ...flow,
    kind: 'admin_consent',
    oidc_nonce: nonce,
    code_verifier: deps.cipher.seal(pkce.verifier),
  });
  return authorizationUrl({
    provider,
    integration,
    config: base.connection_config,
    state,
    redirectUri: deps.callbackUrl,
    codeChallenge: pkce.challenge,
    extraScopes: ['openid'],
    extra: { prompt: 'admin_consent', nonce, response_mode: 'query' },
  });
}

async function provenTenant(deps: FlowDeps, ctx: Context, flow: Flow): Promise<string> {
  if (flow.pinned_tenant) {
    if ((queryValue(ctx, 'admin_consent') ?? '').toLowerCase() !== 'true') {
      throw new GatewayError('authorization_denied', 'The administrator did not grant consent for the organization.');
    }
    const said = queryValue(ctx, 'tenant');
    if (said !== undefined && said.toLowerCase() !== flow.pinned_tenant.toLowerCase()) {
      throw new GatewayError(
        'tenant_not_proven',
        `Consent came back for tenant ${said}, but this session is for tenant ${flow.pinned_tenant}; nothing was created.`,
      );
    }
    return flow.pinned_tenant;
  }
  const code = queryValue(ctx, 'code');
  if (!code || !flow.oidc_nonce)
    throw new GatewayError(
      'tenant_not_proven',
      'The provider returned no authorization code, so the consenting organization cannot be proven; nothing was created.',
    );
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const client = oauthClientOf(integration);
  const grant: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: deps.callbackUrl };
  if (flow.code_verifier) grant.code_verifier = deps.cipher.open<string>(flow.code_verifier);
  const answer = await grantToken(
    deps,
    provider,
    fillTemplate(provider.token_url ?? '', flow.connection_config),
    client,
    grant,
  );
  return tenantFromIdToken(deps.keySets, provider, answer.id_token, client.client_id, flow.oidc_nonce);
}

/** Back at the callback: the proven tenant, then its first app-only token (proving consent and secret), then the connection. */
export async function finishAdminConsent(deps: FlowDeps, ctx: Context, flow: Flow): Promise<void> {
  const refusal = providerRefusal(ctx, deps.callbackUrl);
  if (refusal) throw refusal;
  const tenant = await provenTenant(deps, ctx, flow);
  const config = { ...flow.connection_config, tenant };
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const scopes = scopesFor(provider, integration);
  const grant: Record<string, string> = {
    ...Object.fromEntries(Object.entries(provider.token_params ?? {}).map(([k, v]) => [k, fillTemplate(v, config)])),
    grant_type: 'client_credentials',
  };
  if (scopes.length > 0) grant.scope = scopes.join(provider.scope_separator ?? ' ');
  const answer = await grantToken(
    deps,
    provider,
    fillTemplate(provider.token_url ?? '', config),
    oauthClientOf(integration),
    grant,
  );
  const { access_token: token, expires_at } = oauth2CredentialsFrom(answer);
  await completeConnection(
    deps,
    ctx,
    flow,
    { type: 'OAUTH2_CC', token, ...(expires_at ? { expires_at } : {}) },
    config,
  );
}
