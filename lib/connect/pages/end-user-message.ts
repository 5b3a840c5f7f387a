import type { GatewayError } from '../../errors.js';

// Failures the end user cannot act on: how the customer configured the integration, or what
// went wrong between the gateway and the provider. The end user reads a neutral sentence; the
// detail goes to the logs and the customer's `auth` webhook.
const neutral = 'This connection is not available right now. The application\'s team has been told; please try again later.';
const byCode: Record<string, string> = {
  integration_credentials_missing: neutral,
  invalid_provider_config: neutral,
  invalid_scopes: neutral,
  unsupported_auth_mode: neutral,
  unknown_provider: neutral,
  unknown_integration: neutral,
  wrong_redirect: 'This sign-in did not come back the way it started. Start again from the application.',
  token_exchange_failed: 'The provider did not complete the authorization. Start again from the application.',
  installation_not_verified: 'This installation could not be confirmed as one you can access. Start again from the application.',
  tenant_not_proven: 'The organization you consented for could not be confirmed. Start again from the application.',
  browser_mismatch: 'This authorization was started in another browser or window. Start again from the application.',
  state_replayed: 'This authorization was already used. Start again from the application.',
  invalid_state: 'This authorization is unknown or too old. Start again from the application.',
  server_error: 'Something went wrong on our side; nothing was stored. Please try again.',
};

/** What the end user's page says for a failure: never a configuration hint meant for developers. */
export function endUserMessage(error: Pick<GatewayError, 'code' | 'message'>): string {
  return byCode[error.code] ?? error.message;
}
