import type { Context } from 'koa';
import type { EndUser } from '../connections/index.js';
import { GatewayError } from '../errors.js';
import type { Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';
import { issueBoundFlow } from './browser-binding.js';
import { oauthClientOf, scopesFor } from './oauth-client.js';
import { checkAdminConsent, startAdminConsent } from './flows/admin-consent.js';
import { checkAppInstall, startAppInstall } from './flows/app-install.js';
import { startOAuth2Code } from './flows/oauth2-code.js';
import { missingConfig, picksHost } from './connection-config.js';
import type { FlowDeps } from './deps.js';
import type { Flow } from './flow-store.js';
import { sendFormPage, type FormField } from './pages/form-page.js';
import type { Branding } from './pages/look.js';
import { lookFor } from './look.js';

/** What is known when an end user starts connecting one integration. */
export interface StartBase {
  environment: string;
  integration: Integration;
  provider: Provider;
  end_user: EndUser;
  connection_id: string | null;
  origin: string | null;
  /** Admin consent: the tenant the customer's backend pinned on the session. */
  pinned_tenant: string | null;
  connection_config: Record<string, string>;
  /** The brand (the session's over the integration's) and the session's language; the pages after the provider show them too. */
  branding: Branding | null;
  locale: string | null;
}

export type Plan = { step: 'form'; fields: FormField[] } | { step: 'oauth' | 'admin_consent' | 'app_install' };

const credentialFields: Record<string, FormField[]> = {
  API_KEY: [{ name: 'apiKey', secret: true }],
  BASIC: [
    { name: 'username', secret: false },
    { name: 'password', secret: true },
  ],
};

/**
 * Decides the first step for the integration's auth mode, checking everything that can be
 * checked before the end user leaves (credentials configured, scopes, config values), so a
 * misconfiguration is reported without spending the session.
 */
export function planStart(base: StartBase): Plan {
  const { provider, integration } = base;
  const mode = provider.auth_mode;
  const credentials = credentialFields[mode];
  let step: 'oauth' | 'admin_consent' | 'app_install' | undefined;
  if (mode === 'OAUTH2') step = 'oauth';
  else if (mode === 'OAUTH2_CC' && provider.admin_consent_url) step = 'admin_consent';
  else if (mode === 'APP') step = 'app_install';
  else if (!credentials) {
    throw new GatewayError(
      'unsupported_auth_mode',
      `Provider "${provider.name}" (auth mode ${mode}) needs no end-user authorization: create its connections with POST /connections.`,
    );
  }
  if (step === 'app_install') checkAppInstall(provider, integration);
  else if (step) {
    oauthClientOf(integration);
    scopesFor(provider, integration);
    if (step === 'admin_consent') checkAdminConsent(base);
  }
  const missing = missingConfig(provider, base.connection_config);
  const onlyCustomer = missing.find((name) => picksHost(provider, name));
  if (onlyCustomer) {
    throw new GatewayError(
      'missing_connection_config',
      `connection_config.${onlyCustomer} decides which host receives the credentials: the application must set it in the connect session (integrations_config_defaults).`,
    );
  }
  const configFields = missing.map((name): FormField => ({ name: `connection_config.${name}`, secret: false }));
  if (credentials) return { step: 'form', fields: [...configFields, ...credentials] };
  return configFields.length > 0 || !step ? { step: 'form', fields: configFields } : { step };
}

const flowOf = (base: StartBase): Omit<Flow, 'browser' | 'kind'> => ({
  environment: base.environment,
  provider_config_key: base.integration.unique_key,
  provider: base.provider.name,
  end_user: base.end_user,
  connection_id: base.connection_id,
  origin: base.origin,
  connection_config: base.connection_config,
  code_verifier: null,
  installation_id: null,
  pinned_tenant: base.pinned_tenant,
  oidc_nonce: null,
  branding: base.branding,
  locale: base.locale,
});

/** Where the end user goes next for a redirecting step; the flow is stored first, bound to this browser. */
export function redirectTarget(
  deps: FlowDeps,
  ctx: Context,
  base: StartBase,
  step: 'oauth' | 'admin_consent' | 'app_install',
): Promise<string> {
  if (step === 'app_install') return startAppInstall(deps, ctx, base, flowOf(base));
  if (step === 'admin_consent') return startAdminConsent(deps, ctx, base, flowOf(base));
  return startOAuth2Code(deps, ctx, base, flowOf(base));
}

/** Carries out the plan: a redirect to the provider, or the form with a fresh form token. */
export async function carryOut(deps: FlowDeps, ctx: Context, base: StartBase, plan: Plan): Promise<void> {
  if (plan.step === 'form') {
    const state = await issueBoundFlow(deps, ctx, { ...flowOf(base), kind: 'form' });
    sendFormPage(ctx, lookOfBase(deps, ctx, base), {
      action: `${deps.connectUrl}/${encodeURIComponent(base.integration.unique_key)}`,
      state,
      fields: plan.fields,
    });
    return;
  }
  const target = await redirectTarget(deps, ctx, base, plan.step);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.redirect(target);
}

/** The pages' presentation for an attempt that has started. */
export const lookOfBase = (deps: FlowDeps, ctx: Context, base: StartBase) =>
  lookFor(
    deps,
    ctx,
    {
      branding: base.branding,
      locale: base.locale,
      provider: base.provider.name,
      endUser: base.end_user,
      providerConfigKey: base.integration.unique_key,
    },
    base.origin,
  );
