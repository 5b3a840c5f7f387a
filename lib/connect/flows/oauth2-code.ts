import type { Context } from 'koa';
import { issueBoundFlow } from '../browser-binding.js';
import { GatewayError } from '../../errors.js';
import { authorizationUrl, oauthClientOf } from '../oauth-client.js';
import { createPkcePair } from '../pkce.js';
import type { StartBase } from '../plan.js';
import { completeConnection } from '../complete.js';
import { fillTemplate } from '../connection-config.js';
import type { FlowDeps } from '../deps.js';
import type { Flow } from '../flow-store.js';
import { grantToken, providerRefusal } from '../provider-answer.js';
import { loadTarget, queryValue } from '../request.js';
import { configFromTokenResponse, oauth2CredentialsFrom } from '../token-credentials.js';

const filledParams = (params: Record<string, string> | undefined, config: Record<string, string>) =>
  Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, fillTemplate(v, config)]));

/** The provider's consent page (PKCE when the catalog says so); the flow is stored bound to this browser. */
export async function startOAuth2Code(
  deps: FlowDeps,
  ctx: Context,
  base: StartBase,
  flow: Omit<Flow, 'browser' | 'kind'>,
): Promise<string> {
  const pkce = base.provider.pkce ? createPkcePair() : undefined;
  const state = await issueBoundFlow(deps, ctx, {
    ...flow,
    kind: 'oauth',
    code_verifier: pkce ? deps.cipher.seal(pkce.verifier) : null,
  });
  return authorizationUrl({
    provider: base.provider,
    integration: base.integration,
    config: base.connection_config,
    state,
    redirectUri: deps.callbackUrl,
    codeChallenge: pkce?.challenge,
  });
}

/** Authorization code flow: exchange the code (with the PKCE verifier) and store the tokens. */
export async function finishOAuth(deps: FlowDeps, ctx: Context, flow: Flow): Promise<void> {
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
  const answer = await grantToken(
    deps,
    provider,
    fillTemplate(provider.token_url ?? '', flow.connection_config),
    oauthClientOf(integration),
    grant,
  );
  const credentials = oauth2CredentialsFrom(answer);
  const config = { ...flow.connection_config, ...configFromTokenResponse(provider, answer) };
  await completeConnection(deps, ctx, flow, credentials, config);
}
