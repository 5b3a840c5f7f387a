import type { Context } from 'koa';
import type { EndUser } from '../connections/index.js';
import { GatewayError } from '../errors.js';
import type { Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';
import { adminConsentUrl, authorizationUrl, installationUrl, oauthClientOf, scopesFor } from './authorization-urls.js';
import { missingConfig, picksHost } from './connection-config.js';
import type { OAuthDeps } from './deps.js';
import type { Flow } from './flow.js';
import { sendFormPage, type FormField } from './form-page.js';
import { escapeHtml, sendPage } from './html.js';
import { createPkcePair } from './pkce.js';

/** What is known when an end user starts connecting one integration. */
export interface StartBase {
  environment: string;
  integration: Integration;
  provider: Provider;
  end_user: EndUser;
  connection_id: string | null;
  origin: string | null;
  connection_config: Record<string, string>;
}

export type Plan =
  | { step: 'form'; fields: FormField[] }
  | { step: 'oauth' | 'admin_consent' | 'app_install' };

const credentialFields: Record<string, FormField[]> = {
  API_KEY: [{ name: 'apiKey', label: 'API key', secret: true }],
  BASIC: [{ name: 'username', label: 'Username', secret: false }, { name: 'password', label: 'Password', secret: true }],
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
    throw new GatewayError('unsupported_auth_mode', `Provider "${provider.name}" (auth mode ${mode}) needs no end-user authorization: create its connections with POST /connections.`);
  }
  if (step === 'app_install') installationUrl(provider, integration, 'check');
  else if (step) {
    oauthClientOf(integration);
    scopesFor(provider, integration);
  }
  const missing = missingConfig(provider, base.connection_config);
  const onlyCustomer = missing.find((name) => picksHost(provider, name));
  if (onlyCustomer) {
    throw new GatewayError('missing_connection_config', `connection_config.${onlyCustomer} decides which host receives the credentials: the application must set it in the connect session (integrations_config_defaults).`);
  }
  const configFields = missing.map((name): FormField => ({ name: `connection_config.${name}`, label: name, secret: false }));
  if (credentials) return { step: 'form', fields: [...configFields, ...credentials] };
  return configFields.length > 0 || !step ? { step: 'form', fields: configFields } : { step };
}

const flowOf = (base: StartBase, kind: Flow['kind'], extra: Partial<Flow> = {}): Flow => ({
  kind,
  environment: base.environment,
  provider_config_key: base.integration.unique_key,
  provider: base.provider.name,
  end_user: base.end_user,
  connection_id: base.connection_id,
  origin: base.origin,
  connection_config: base.connection_config,
  code_verifier: null,
  installation_id: null,
  ...extra,
});

/** Where the end user goes next for a redirecting step; the state is stored first. */
export async function redirectTarget(deps: OAuthDeps, base: StartBase, step: 'oauth' | 'admin_consent' | 'app_install'): Promise<string> {
  const { provider, integration } = base;
  if (step === 'app_install') {
    const { token } = await deps.flows.issue(flowOf(base, 'app_install'));
    return installationUrl(provider, integration, token);
  }
  const request = { provider, integration, config: base.connection_config, redirectUri: deps.callbackUrl };
  if (step === 'admin_consent') {
    const { token } = await deps.flows.issue(flowOf(base, 'admin_consent'));
    return adminConsentUrl({ ...request, state: token });
  }
  const pkce = provider.pkce ? createPkcePair() : undefined;
  const { token } = await deps.flows.issue(flowOf(base, 'oauth', { code_verifier: pkce ? deps.cipher.seal(pkce.verifier) : null }));
  return authorizationUrl({ ...request, state: token, codeChallenge: pkce?.challenge });
}

/** Carries out the plan: a redirect to the provider, or the form with a fresh form token. */
export async function carryOut(deps: OAuthDeps, ctx: Context, base: StartBase, plan: Plan): Promise<void> {
  if (plan.step === 'form') {
    const { token } = await deps.flows.issue(flowOf(base, 'form'));
    sendFormPage(ctx, { action: `${deps.connectUrl}/${encodeURIComponent(base.integration.unique_key)}`, providerName: base.provider.display_name, state: token, fields: plan.fields });
    return;
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.redirect(await redirectTarget(deps, base, plan.step));
}

/**
 * After a form POST the next hop is the provider. A redirect answering a form submission is
 * subject to the page's `form-action`, which cannot name every provider host in advance, so
 * the hop is a link the page follows.
 */
export function sendContinuePage(ctx: Context, providerName: string, target: string): void {
  const href = escapeHtml(target);
  sendPage(ctx, {
    title: `Continue to ${providerName}`,
    status: 200,
    head: `<meta http-equiv="refresh" content="0;url=${href}">`,
    body: `<h1>Continue to ${escapeHtml(providerName)}</h1>` +
      `<p><a href="${href}">Continue</a></p>`,
  });
}
