import Router from '@koa/router';
import { GatewayError } from '../errors.js';
import type { GatewayState } from '../http/state.js';
import { pageRoute } from './attempt.js';
import type { OAuthDeps } from './deps.js';
import { finishAppUser, finishInstallation } from './finish-app.js';
import { finishAdminConsent, finishOAuth } from './finish-oauth.js';
import { claimFlow, queryValue } from './request.js';

const notFromConnectLink = () => new GatewayError('wrong_redirect',
  'This installation did not start from a connect link. Connections start from the application (the frontend SDK), not from the provider\'s marketplace or the app\'s page.');

/** Where providers send the end user back: `/oauth/callback` (spec 5.1.1) and the app setup URL (spec 2.5). */
export function createCallbackRoutes(deps: OAuthDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.get('/oauth/callback', pageRoute(deps, async (ctx, scope) => {
    const state = queryValue(ctx, 'state');
    if (!state && queryValue(ctx, 'installation_id')) throw notFromConnectLink();
    const claim = await claimFlow(deps, state, scope, ['oauth', 'admin_consent', 'app_install', 'app_user']);
    // Spent whatever happens next: an authorization code cannot be exchanged twice anyway.
    await claim.finish();
    const flow = claim.value;
    if (flow.kind === 'oauth') await finishOAuth(deps, ctx, flow);
    else if (flow.kind === 'admin_consent') await finishAdminConsent(deps, ctx, flow);
    else await finishAppUser(deps, ctx, flow);
  }));

  router.get('/oauth/app-setup', pageRoute(deps, async (ctx, scope) => {
    const state = queryValue(ctx, 'state');
    if (!state) throw notFromConnectLink();
    const claim = await claimFlow(deps, state, scope, ['app_install']);
    await claim.finish();
    await finishInstallation(deps, ctx, claim.value);
  }));

  return router;
}
