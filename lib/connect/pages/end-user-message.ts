import type { GatewayError } from '../../errors.js';
import type { FailureKind, FormErrorKind, Messages } from './text/index.js';

// Failures as the end user reads them. Codes the end user cannot act on (how the customer
// configured the integration or the session, the redirect URI registered at the provider)
// all read "not available, contact the app"; the detail goes to the logs and the `auth`
// webhook. A code missing here reads as a server failure, never as its developer message.
const kindByCode: Record<string, FailureKind> = {
  integration_credentials_missing: 'unavailable',
  invalid_provider_config: 'unavailable',
  invalid_scopes: 'unavailable',
  unsupported_auth_mode: 'unavailable',
  unknown_provider: 'unavailable',
  unknown_integration: 'unavailable',
  integration_not_allowed: 'unavailable',
  missing_connection_config: 'unavailable',
  invalid_connection_config: 'unavailable',
  wrong_redirect: 'unavailable',
  invalid_state: 'attempt_expired',
  state_expired: 'attempt_expired',
  state_replayed: 'attempt_used',
  browser_mismatch: 'other_browser',
  authorization_denied: 'denied',
  installation_pending: 'pending',
  authorization_failed: 'provider_failed',
  token_exchange_failed: 'provider_failed',
  upstream_unreachable: 'provider_failed',
  upstream_error: 'provider_failed',
  upstream_timeout: 'provider_failed',
  installation_not_verified: 'not_verified',
  tenant_not_proven: 'org_not_proven',
};

/** Which failure page an error gets. */
export function failureKindOf(error: Pick<GatewayError, 'code' | 'details'>): FailureKind {
  if (error.code === 'invalid_connect_session') {
    const link = error.details?.link;
    return link === 'expired' ? 'link_expired' : link === 'used' ? 'link_used' : 'link_invalid';
  }
  return kindByCode[error.code] ?? 'server';
}

/** The failure as the end user reads it (also what the opener receives as the message). */
export function endUserFailure(
  text: Messages,
  error: Pick<GatewayError, 'code' | 'details'>,
  provider: string,
  app: string,
): { title: string; body: string } {
  const entry = text.failure[failureKindOf(error)];
  return { title: entry.title, body: entry.body(provider, app) };
}

const formKindByCode: Record<string, FormErrorKind> = {
  invalid_credentials: 'refused',
  upstream_unreachable: 'unreachable',
  invalid_body: 'missing',
  missing_connection_config: 'missing',
  invalid_connection_config: 'invalid_setting',
};

/** What a refused form says above its fields. */
export function formErrorText(text: Messages, code: string, provider: string): string {
  return text.formError[formKindByCode[code] ?? 'refused'](provider);
}
