import type { Context } from 'koa';
import { GatewayError } from '../../errors.js';
import type { Integration } from '../../integrations/index.js';
import type { Provider } from '../../providers/index.js';
import { issueBoundFlow } from '../browser-binding.js';
import { completeConnection } from '../complete.js';
import type { FlowDeps } from '../deps.js';
import type { Flow } from '../flow-store.js';
import { parseUrl } from '../oauth-client.js';
import type { StartBase } from '../plan.js';
import { grantToken, providerRefusal } from '../provider-answer.js';
import { loadTarget, queryValue } from '../request.js';
import { oauth2CredentialsFrom } from '../token-credentials.js';
import {
  appUserAuthorizationUrl,
  asksForUserAuthorization,
  verifyAppInstallation,
  verifyUserInstallation,
  type AppCredentials,
} from './app-api.js';

/**
 * Code-hosting app installation (spec 5.1.4). The installation id on the way back is only a
 * claim (ids are sequential; anyone can type one): by default the end user then authorizes the
 * app, and the connection is created only for an installation their token can access.
 */

function appOf(integration: Integration): AppCredentials {
  const c = integration.credentials;
  if (!c || c.type !== 'APP') {
    throw new GatewayError(
      'integration_credentials_missing',
      `Integration "${integration.unique_key}" has no app credentials yet: set app_id, app_link and private_key with PATCH /integrations/${integration.unique_key}.`,
    );
  }
  return c;
}

/** Refuses, before the session is spent, an app that could not prove who owns an installation. */
export function checkAppInstall(provider: Provider, integration: Integration): void {
  const app = appOf(integration);
  if (asksForUserAuthorization(provider, app) || app.insecure_trust_setup_url_installation_id) return;
  throw new GatewayError(
    'integration_credentials_missing',
    `Integration "${integration.unique_key}" cannot prove that an installation belongs to the person installing it: set the app's client_id and client_secret (user authorization) with PATCH /integrations/${integration.unique_key}` +
      (provider.user_authorization ? '' : ` (provider "${provider.name}" has no user_authorization in the catalog)`) +
      ', or opt out with insecure_trust_setup_url_installation_id: true.',
  );
}

/** The app's installation page, e.g. `${app_link}/installations/new`, carrying the bound state. */
export async function startAppInstall(
  deps: FlowDeps,
  ctx: Context,
  base: StartBase,
  flow: Omit<Flow, 'browser' | 'kind'>,
): Promise<string> {
  const app = appOf(base.integration);
  const template = base.provider.installation_url ?? '${app_link}/installations/new';
  const url = parseUrl(template.replace('${app_link}', app.app_link.replace(/\/+$/, '')), 'installation URL');
  url.searchParams.set('state', await issueBoundFlow(deps, ctx, { ...flow, kind: 'app_install' }));
  return url.toString();
}

function installationIdOf(ctx: Context): string {
  if (queryValue(ctx, 'setup_action') === 'request') {
    throw new GatewayError(
      'installation_pending',
      'The installation was requested and waits for an organization owner to approve it. Connect again once it is approved.',
    );
  }
  const id = queryValue(ctx, 'installation_id') ?? '';
  if (!/^\d{1,20}$/.test(id))
    throw new GatewayError('authorization_failed', 'The provider returned no installation id.');
  return id;
}

/**
 * Back at the setup URL after an installation: the end user authorizes the app next (a new
 * state, bound to the same browser); only with the integration's explicit opt-out is the
 * installation taken after checking it belongs to the app.
 */
export async function finishInstallation(deps: FlowDeps, ctx: Context, flow: Flow): Promise<void> {
  const installationId = installationIdOf(ctx);
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const app = appOf(integration);
  if (asksForUserAuthorization(provider, app)) {
    const { browser: _spent, ...rest } = flow;
    const state = await issueBoundFlow(deps, ctx, { ...rest, kind: 'app_user', installation_id: installationId });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(appUserAuthorizationUrl(provider, app.client_id, state, deps.callbackUrl));
    return;
  }
  if (!app.insecure_trust_setup_url_installation_id) checkAppInstall(provider, integration);
  deps.logger.warn(
    'app installation taken from the setup URL without user authorization (insecure_trust_setup_url_installation_id)',
    {
      environment: flow.environment,
      provider_config_key: flow.provider_config_key,
      installation_id: installationId,
    },
  );
  await verifyAppInstallation(deps.fetch, provider, app, flow.connection_config, installationId);
  await completeConnection(deps, ctx, flow, { type: 'APP', installation_id: installationId }, flow.connection_config);
}

/**
 * Back at the callback with a user authorization code: after the installation (`app_user`),
 * or during it when the app requests user authorization on install (`app_install`, the
 * provider then sends `installation_id` along). User tokens expire and carry a refresh token.
 */
export async function finishAppUser(deps: FlowDeps, ctx: Context, flow: Flow): Promise<void> {
  const refusal = providerRefusal(ctx, deps.callbackUrl);
  if (refusal) throw refusal;
  const installationId = flow.installation_id ?? installationIdOf(ctx);
  const code = queryValue(ctx, 'code');
  if (!code) throw new GatewayError('authorization_failed', 'The provider returned neither a code nor an error.');
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const app = appOf(integration);
  if (!asksForUserAuthorization(provider, app)) {
    throw new GatewayError(
      'invalid_provider_config',
      `Integration "${integration.unique_key}" has no client_id and client_secret for user authorization.`,
    );
  }
  const answer = await grantToken(
    deps,
    provider,
    provider.user_authorization?.token_url ?? '',
    { client_id: app.client_id, client_secret: app.client_secret },
    { grant_type: 'authorization_code', code, redirect_uri: deps.callbackUrl },
  );
  const user = oauth2CredentialsFrom(answer);
  await verifyUserInstallation(deps.fetch, provider, flow.connection_config, user.access_token, installationId);
  await completeConnection(
    deps,
    ctx,
    { ...flow, kind: 'app_user' },
    {
      type: 'APP',
      installation_id: installationId,
      user_access_token: user.access_token,
      ...(user.refresh_token ? { user_refresh_token: user.refresh_token } : {}),
      ...(user.expires_at ? { user_expires_at: user.expires_at } : {}),
    },
    flow.connection_config,
  );
}
