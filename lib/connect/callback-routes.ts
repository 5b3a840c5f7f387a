import { GatewayError } from '../errors.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';
import { pageRoute } from './attempt.js';
import { forgetBrowser } from './browser-binding.js';
import type { FlowDeps } from './deps.js';
import { finishAdminConsent } from './flows/admin-consent.js';
import { finishAppUser, finishInstallation } from './flows/app-install.js';
import { finishOAuth } from './flows/oauth2-code.js';
import { claimFlow, queryValue } from './request.js';

const notFromConnectLink = () =>
  new GatewayError(
    'wrong_redirect',
    "This installation did not start from a connect link. Connections start from the application (the frontend SDK), not from the provider's marketplace or the app's page.",
  );

/** Where providers send the end user back: `/oauth/callback` (spec 5.1.1) and the app setup URL (spec 2.5). */
export function createCallbackRoutes(deps: FlowDeps): RouteSpec[] {
  const routes = defineRoutes({ auth: 'public', tag: 'connect', answers: 'page', errors: [400, 401, 403, 404, 409] });

  routes.get(
    '/oauth/callback',
    {
      summary:
        'OAuth redirect URI (spec 5.1.1): verifies state, exchanges the code, stores the connection; answers the HTML result page',
      query: {
        state: 'the state sent to the provider',
        code: 'authorization code',
        error: 'provider error, e.g. access_denied',
      },
    },
    pageRoute(deps, async (ctx, scope) => {
      const state = queryValue(ctx, 'state');
      if (!state && queryValue(ctx, 'installation_id')) throw notFromConnectLink();
      const claim = await claimFlow(deps, ctx, state, scope, ['oauth', 'admin_consent', 'app_install', 'app_user']);
      // Spent whatever happens next: an authorization code cannot be exchanged twice anyway.
      await claim.finish();
      forgetBrowser(deps, ctx, state as string);
      const flow = claim.value;
      if (flow.kind === 'oauth') await finishOAuth(deps, ctx, flow);
      else if (flow.kind === 'admin_consent') await finishAdminConsent(deps, ctx, flow);
      else await finishAppUser(deps, ctx, flow);
    }),
  );

  routes.get(
    '/oauth/app-setup',
    {
      summary:
        'Code-hosting app setup URL (spec 2.5, 5.1.4): ties the installation to the connect session; answers the HTML result page',
      query: {
        state: 'the state sent with the installation link',
        installation_id: 'the installation',
        setup_action: 'install, update or request',
      },
    },
    pageRoute(deps, async (ctx, scope) => {
      const state = queryValue(ctx, 'state');
      if (!state) throw notFromConnectLink();
      const claim = await claimFlow(deps, ctx, state, scope, ['app_install']);
      await claim.finish();
      forgetBrowser(deps, ctx, state);
      await finishInstallation(deps, ctx, claim.value);
    }),
  );

  return routes.specs;
}
