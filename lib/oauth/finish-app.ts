import type { Context } from 'koa';
import { GatewayError } from '../errors.js';
import type { Integration } from '../integrations/index.js';
import { appUserAuthorizationUrl, asksForUserAuthorization, verifyAppInstallation, verifyUserInstallation, type AppCredentials } from './app-installation.js';
import { completeConnection } from './complete.js';
import type { OAuthDeps } from './deps.js';
import type { Flow } from './flow.js';
import { providerRefusal, tokenFailure } from './provider-answer.js';
import { loadTarget, queryValue } from './request.js';
import { oauth2CredentialsFrom } from './token-credentials.js';
import { requestToken } from './token-request.js';

function appOf(integration: Integration): AppCredentials {
  const c = integration.credentials;
  if (!c || c.type !== 'APP') throw new GatewayError('integration_credentials_missing', `Integration "${integration.unique_key}" has no app credentials.`);
  return c;
}

function installationIdOf(ctx: Context): string {
  if (queryValue(ctx, 'setup_action') === 'request') {
    throw new GatewayError('installation_pending', 'The installation was requested and waits for an organization owner to approve it. Connect again once it is approved.');
  }
  const id = queryValue(ctx, 'installation_id') ?? '';
  if (!/^\d{1,20}$/.test(id)) throw new GatewayError('authorization_failed', 'The provider returned no installation id.');
  return id;
}

/**
 * Back at the setup URL after an installation (spec 5.1.4). With user authorization
 * configured the end user authorizes next, which proves the installation is theirs;
 * otherwise the installation is checked to belong to the app and the connection is created.
 */
export async function finishInstallation(deps: OAuthDeps, ctx: Context, flow: Flow): Promise<void> {
  const installationId = installationIdOf(ctx);
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const app = appOf(integration);
  if (asksForUserAuthorization(provider, app)) {
    const { token } = await deps.flows.issue({ ...flow, kind: 'app_user', installation_id: installationId });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(appUserAuthorizationUrl(provider, app.client_id, token, deps.callbackUrl));
    return;
  }
  await verifyAppInstallation(deps.fetch, provider, app, flow.connection_config, installationId);
  await completeConnection(deps, ctx, flow, { type: 'APP', installation_id: installationId }, flow.connection_config);
}

/**
 * Back at the callback with a user authorization code: after the installation (`app_user`),
 * or during it when the app requests user authorization on install (`app_install`, the
 * provider then sends `installation_id` along). User tokens expire and carry a refresh token.
 */
export async function finishAppUser(deps: OAuthDeps, ctx: Context, flow: Flow): Promise<void> {
  const refusal = providerRefusal(ctx, deps.callbackUrl);
  if (refusal) throw refusal;
  const installationId = flow.installation_id ?? installationIdOf(ctx);
  const code = queryValue(ctx, 'code');
  if (!code) throw new GatewayError('authorization_failed', 'The provider returned neither a code nor an error.');
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const app = appOf(integration);
  if (!asksForUserAuthorization(provider, app)) {
    throw new GatewayError('invalid_provider_config', `Integration "${integration.unique_key}" has no client_id and client_secret for user authorization.`);
  }
  const outcome = await requestToken(deps.fetch, provider, provider.user_authorization?.token_url ?? '',
    { client_id: app.client_id, client_secret: app.client_secret },
    { grant_type: 'authorization_code', code, redirect_uri: deps.callbackUrl });
  if (!outcome.ok) throw tokenFailure(outcome, deps.callbackUrl);
  const user = oauth2CredentialsFrom(outcome.body);
  await verifyUserInstallation(deps.fetch, provider, flow.connection_config, user.access_token, installationId);
  await completeConnection(deps, ctx, { ...flow, kind: 'app_user' }, {
    type: 'APP',
    installation_id: installationId,
    user_access_token: user.access_token,
    ...(user.refresh_token ? { user_refresh_token: user.refresh_token } : {}),
    ...(user.expires_at ? { user_expires_at: user.expires_at } : {}),
  }, flow.connection_config);
}
