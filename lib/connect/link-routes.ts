import type { Context } from 'koa';
import { isConcreteTenant, type ConnectSession } from './sessions/session.js';
import { GatewayError } from '../errors.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';
import { param } from '../http/params.js';
import type { Provider } from '../providers/index.js';
import { pageRoute, type Attempt, type PageScope } from './attempt.js';
import { sendChooserPage } from './pages/chooser-page.js';
import { logoUrlFor } from './pages/look.js';
import { brandingOf, lookFor } from './look.js';
import { mergeConnectionConfig } from './connection-config.js';
import type { FlowDeps } from './deps.js';
import { submitForm } from './flows/credentials-form.js';
import { carryOut, planStart, type StartBase } from './plan.js';
import { originFor, queryValue, typedConfig } from './request.js';

const connectable = (p: Provider) =>
  p.auth_mode !== 'NONE' && (p.auth_mode !== 'OAUTH2_CC' || Boolean(p.admin_consent_url));

/** A session that can still start an attempt, or the reason it cannot. */
async function openSession(
  deps: FlowDeps,
  ctx: Context,
  scope: PageScope,
): Promise<{ token: string; session: ConnectSession; expired: boolean; used: boolean }> {
  const token = queryValue(ctx, 'connect_session_token');
  if (!token)
    throw new GatewayError(
      'invalid_connect_session',
      'This link has no connect session token. Open it from the application.',
    );
  const peeked = await deps.sessions.peek(token);
  if (!peeked)
    throw new GatewayError(
      'invalid_connect_session',
      'This connect link is not valid (unknown or long expired). Ask the application for a new one.',
    );
  scope.origin = originFor(peeked.value.allowed_origins ?? [], queryValue(ctx, 'origin'));
  scope.flowToken = token;
  scope.reportPerCode = true;
  scope.branding = peeked.value.branding;
  scope.locale = peeked.value.locale;
  // A link opened again after it was used: logged, not reported again, no message to any page.
  if (peeked.used) scope.quiet = true;
  return { token, session: peeked.value, expired: peeked.expired, used: peeked.used };
}

const attemptFor = (session: ConnectSession, key: string, provider: Provider): Attempt => ({
  environment: session.environment,
  provider_config_key: key,
  provider: provider.name,
  end_user: session.end_user,
  connection_id: session.connection_id,
  operation: provider.auth_mode === 'API_KEY' || provider.auth_mode === 'BASIC' ? 'connect' : 'oauth',
});

/** The tenant the customer's backend fixed for this integration, if it names one organization. */
function pinnedTenant(session: ConnectSession, key: string): string | null {
  const configured = session.integrations_config_defaults[key]?.tenant;
  return session.tenant ?? (isConcreteTenant(configured) ? configured : null);
}

// `details.link` picks the end user's page (expired or used); the message is the customer's.
const sessionGone = (expired: boolean) =>
  expired
    ? new GatewayError('invalid_connect_session', 'This connect link expired. Ask the application for a new one.', {
        link: 'expired',
      })
    : new GatewayError(
        'invalid_connect_session',
        'This connect link was already used; each link starts one authorization. Ask the application for a new one.',
        { link: 'used' },
      );

/** The public routes the end user's browser opens: the connect link, its integrations, the form. */
export function createConnectRoutes(deps: FlowDeps): RouteSpec[] {
  const routes = defineRoutes({ auth: 'public', tag: 'connect', answers: 'page', errors: [400, 401, 403, 404, 409] });

  // The connect link: straight to the only integration, or a list to choose from.
  routes.get(
    '/oauth/connect',
    {
      summary: 'The connect link (HTML): straight to the only allowed integration, or a list to choose from',
      query: {
        connect_session_token: 'the session token',
        origin: "origin of the opening page: picks among the session's allowed_origins, never adds one",
      },
    },
    pageRoute(deps, async (ctx, scope) => {
      const { session, expired, used } = await openSession(deps, ctx, scope);
      const integrations = (await deps.integrations.list(session.environment))
        .filter((i) => !session.allowed_integrations || session.allowed_integrations.includes(i.unique_key))
        .filter((i) => {
          const p = deps.catalog.get(i.provider);
          return p !== undefined && connectable(p);
        });
      const [only] = integrations;
      if (only && integrations.length === 1) {
        scope.attempt = attemptFor(session, only.unique_key, deps.catalog.get(only.provider) as Provider);
        scope.branding = brandingOf(session.branding, only.branding);
      }
      if (expired || used) throw sessionGone(expired);
      if (!only) throw new GatewayError('integration_not_allowed', 'There is nothing to connect with this link.');
      const query = ctx.querystring;
      if (integrations.length === 1) {
        ctx.set('Cache-Control', 'no-store');
        ctx.redirect(`${deps.connectUrl}/${encodeURIComponent(only.unique_key)}?${query}`);
        return;
      }
      const look = lookFor(
        deps,
        ctx,
        { branding: session.branding, locale: session.locale, endUser: session.end_user },
        scope.origin,
      );
      sendChooserPage(
        ctx,
        look,
        integrations.map((i) => ({
          href: `${deps.connectUrl}/${encodeURIComponent(i.unique_key)}?${query}`,
          name: i.display_name,
          logoUrl: logoUrlFor(deps.baseUrl, i.provider),
        })),
      );
    }),
  );

  routes.get(
    '/oauth/connect/:integration',
    {
      summary:
        'Starts an authorization bound to this browser (an HttpOnly cookie): 302 to the provider (OAuth, admin consent, app installation) or the API key form (HTML)',
      query: {
        connect_session_token: 'the session token',
        origin: "origin of the opening page: picks among the session's allowed_origins, never adds one",
        'connection_config.NAME': 'a connection setting the end user supplies (declared names only)',
      },
    },
    pageRoute(deps, async (ctx, scope) => {
      const { token, session, expired, used } = await openSession(deps, ctx, scope);
      const key = param(ctx, 'integration');
      const env = session.environment;
      const integration = await deps.integrations.require(env, key);
      const provider = deps.catalog.get(integration.provider);
      if (!provider)
        throw new GatewayError('unknown_provider', `Provider "${integration.provider}" is not in the catalog.`);
      scope.attempt = attemptFor(session, key, provider);
      // The session's brand over the integration's, on this page, the form and the pages after the provider.
      const branding = brandingOf(session.branding, integration.branding);
      scope.branding = branding;
      if (expired || used) throw sessionGone(expired);
      if (session.allowed_integrations && !session.allowed_integrations.includes(key)) {
        throw new GatewayError('integration_not_allowed', `This connect link does not allow connecting "${key}".`);
      }
      const base: StartBase = {
        environment: env,
        integration,
        provider,
        end_user: session.end_user,
        connection_id: session.connection_id,
        origin: scope.origin,
        pinned_tenant: pinnedTenant(session, key),
        branding,
        locale: session.locale ?? null,
        connection_config: mergeConnectionConfig(
          provider,
          {
            ...session.integrations_config_defaults[key],
            ...(session.tenant && provider.connection_configuration?.includes('tenant')
              ? { tenant: session.tenant }
              : {}),
          },
          typedConfig(Object.entries(ctx.query)),
        ),
      };
      // Everything checkable is checked before the session is spent.
      const plan = planStart(base);
      const claim = await deps.sessions.claim(token);
      if (!claim.ok) throw sessionGone(claim.reason === 'expired');
      await claim.finish();
      await carryOut(deps, ctx, base, plan);
    }),
  );

  routes.post(
    '/oauth/connect/:integration',
    {
      summary:
        'The API key / basic credentials / connection settings form (application/x-www-form-urlencoded); answers an HTML page',
      errors: [400, 401, 403, 404, 409, 413, 415],
    },
    pageRoute(deps, (ctx, scope) => submitForm(deps, ctx, scope)),
  );
  return routes.specs;
}
