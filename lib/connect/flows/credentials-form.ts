import type { ConnectionCredentials } from '../../connections/index.js';
import { GatewayError } from '../../errors.js';
import { param } from '../../http/params.js';
import { notifyFailure, type PageContext, type PageScope } from '../attempt.js';
import { completeConnection } from '../complete.js';
import { mergeConnectionConfig, missingConfig } from '../connection-config.js';
import type { FlowDeps } from '../deps.js';
import { readForm } from './form-body.js';
import { sendFormPage } from '../pages/form-page.js';
import { claimFlow, loadTarget, typedConfig } from '../request.js';
import { forgetBrowser } from '../browser-binding.js';
import { sendContinuePage } from '../pages/continue-page.js';
import { lookOfBase, planStart, redirectTarget, type StartBase } from '../plan.js';
import { formErrorText } from '../pages/end-user-message.js';
import { verifyCredentials } from './verify-credentials.js';

/** Mistakes the end user can correct on the same form (the form token is handed back). */
const correctable = new Set([
  'invalid_credentials',
  'invalid_connection_config',
  'missing_connection_config',
  'invalid_body',
]);

function typedCredentials(
  mode: string,
  form: Record<string, string>,
): Extract<ConnectionCredentials, { type: 'API_KEY' | 'BASIC' }> {
  if (mode === 'API_KEY') {
    const apiKey = (form.apiKey ?? '').trim();
    if (!apiKey) throw new GatewayError('invalid_body', 'Enter the API key.');
    return { type: 'API_KEY', apiKey };
  }
  const username = (form.username ?? '').trim();
  if (!username) throw new GatewayError('invalid_body', 'Enter the username.');
  return { type: 'BASIC', username, password: form.password ?? '' };
}

/**
 * `POST /oauth/connect/:integration`: the form's answer. API keys and basic credentials are
 * verified and stored; typed connection settings continue to the provider's consent page.
 */
export async function submitForm(deps: FlowDeps, ctx: PageContext, scope: PageScope): Promise<void> {
  const form = await readForm(ctx);
  const claim = await claimFlow(deps, ctx, form.state, scope, ['form']);
  const flow = claim.value;
  if (flow.provider_config_key !== param(ctx, 'integration')) {
    await claim.finish();
    throw new GatewayError('wrong_redirect', 'This form belongs to another integration.');
  }
  const { integration, provider } = await loadTarget(deps, flow.environment, flow.provider_config_key);
  const base: StartBase = {
    environment: flow.environment,
    integration,
    provider,
    end_user: flow.end_user,
    connection_id: flow.connection_id,
    origin: flow.origin,
    pinned_tenant: flow.pinned_tenant,
    connection_config: flow.connection_config,
    branding: flow.branding ?? null,
    locale: flow.locale ?? null,
  };
  const look = lookOfBase(deps, ctx, base);
  try {
    const config = mergeConnectionConfig(provider, flow.connection_config, typedConfig(Object.entries(form)));
    const missing = missingConfig(provider, config);
    if (missing.length > 0) throw new GatewayError('missing_connection_config', `Fill in ${missing.join(', ')}.`);
    if (provider.auth_mode === 'API_KEY' || provider.auth_mode === 'BASIC') {
      const credentials = typedCredentials(provider.auth_mode, form);
      await verifyCredentials(deps.fetch, provider, config, credentials);
      await claim.finish();
      forgetBrowser(deps, ctx, form.state as string);
      await completeConnection(deps, ctx, flow, credentials, config);
      return;
    }
    const plan = planStart({ ...base, connection_config: config });
    if (plan.step === 'form') throw new GatewayError('missing_connection_config', 'Fill in every field.');
    await claim.finish();
    forgetBrowser(deps, ctx, form.state as string);
    sendContinuePage(ctx, look, await redirectTarget(deps, ctx, { ...base, connection_config: config }, plan.step));
  } catch (err) {
    if (!GatewayError.is(err) || !correctable.has(err.code)) {
      await claim.finish();
      throw err;
    }
    // The end user may correct and resend with the same form token until it expires.
    await claim.release();
    await notifyFailure(deps, ctx, scope, err);
    const plan = planStart(base);
    const field = typeof err.details?.field === 'string' ? err.details.field : undefined;
    sendFormPage(ctx, look, {
      action: `${deps.connectUrl}/${encodeURIComponent(integration.unique_key)}`,
      state: form.state as string,
      fields: plan.step === 'form' ? plan.fields : [],
      // The end user reads the table's sentence; the provider's answer went to the logs and the webhook.
      error: formErrorText(look.text, err.code, provider.display_name),
      invalidField: field,
      status: err.status,
    });
  }
}
