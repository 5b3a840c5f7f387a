import type { AuthMode } from '../providers/index.js';
import type { Branding } from './branding.js';
import type { IntegrationCredentials } from './schema.js';

/** What the store keeps: the credentials sealed. */
export interface StoredIntegration {
  unique_key: string;
  provider: string;
  display_name: string;
  credentials: string | null;
  /** Absent on integrations stored before they could be branded. */
  branding?: Branding | null;
  created_at: string;
  updated_at: string;
  /** Its place in the environment's list (lib/storage collection); set by the store. */
  order?: number | undefined;
}

/** An integration as the gateway's code uses it, credentials opened. */
export interface Integration {
  environment: string;
  unique_key: string;
  provider: string;
  display_name: string;
  auth_mode: AuthMode;
  credentials: IntegrationCredentials | null;
  /** How the customer's app appears on this integration's connect pages (a session's `branding` wins). */
  branding: Branding | null;
  created_at: string;
  updated_at: string;
}

/** Secrets are never returned whole: the last four characters identify which one is set. */
export function maskSecret(value: string): string {
  return value.length <= 8 ? '********' : `********${value.slice(-4)}`;
}

export interface IntegrationUrls {
  callbackUrl: string;
  setupUrl: string;
  webhookUrl: (environment: string, uniqueKey: string) => string;
}

/** The API's view: no secret in full, plus the URLs the customer registers at the provider. */
export function publicIntegration(integration: Integration, urls: IntegrationUrls) {
  const c = integration.credentials;
  const credentials =
    c === null
      ? null
      : c.type === 'APP'
        ? {
            type: c.type,
            app_id: c.app_id,
            app_link: c.app_link,
            private_key: '[set]',
            ...(c.client_id ? { client_id: c.client_id } : {}),
            ...(c.client_secret ? { client_secret: maskSecret(c.client_secret) } : {}),
            ...(c.webhook_secret ? { webhook_secret: '[set]' } : {}),
            ...(c.insecure_trust_setup_url_installation_id ? { insecure_trust_setup_url_installation_id: true } : {}),
          }
        : {
            type: c.type,
            client_id: c.client_id,
            client_secret: maskSecret(c.client_secret),
            scopes: c.scopes,
            ...(c.webhook_secret ? { webhook_secret: '[set]' } : {}),
          };
  return {
    unique_key: integration.unique_key,
    provider: integration.provider,
    display_name: integration.display_name,
    auth_mode: integration.auth_mode,
    credentials,
    branding: integration.branding,
    callback_url: urls.callbackUrl,
    ...(integration.auth_mode === 'APP' ? { setup_url: urls.setupUrl } : {}),
    webhook_url: urls.webhookUrl(integration.environment, integration.unique_key),
    created_at: integration.created_at,
    updated_at: integration.updated_at,
  };
}
