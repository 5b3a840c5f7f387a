import type { EndUser } from '../connections/index.js';
import type { Branding } from './pages/look.js';
import { createOneTimeStore, type OneTimeStore } from './sessions/one-time-store.js';
import type { Storage } from '../storage/index.js';

/**
 * What one authorization attempt needs to finish: the `state` (or form token) it is stored
 * under is unguessable, single-use and expires after ten minutes.
 * - `oauth`: authorization code flow, back at /oauth/callback.
 * - `admin_consent`: tenant-wide admin consent (client credentials afterwards), back at /oauth/callback.
 * - `app_install`: code-hosting app installation, back at the setup URL (or at the callback
 *   when the app requests user authorization during installation).
 * - `app_user`: user authorization after an installation, back at /oauth/callback.
 * - `form`: the end user types an API key, basic credentials or connection config.
 */
export interface Flow {
  kind: 'oauth' | 'admin_consent' | 'app_install' | 'app_user' | 'form';
  environment: string;
  provider_config_key: string;
  provider: string;
  end_user: EndUser;
  /** Set when re-authorizing an existing connection. */
  connection_id: string | null;
  /** Where the result page posts its message: one of the session's allowed origins, or none. */
  origin: string | null;
  /** SHA-256 (base64url) of the nonce in the starting browser's cookie. */
  browser: string;
  /** Admin consent: the tenant the customer pinned in the session (null: the ID token must prove it). */
  pinned_tenant: string | null;
  /** Admin consent proven by ID token: the OpenID `nonce` the token must carry. */
  oidc_nonce: string | null;
  connection_config: Record<string, string>;
  /** The attempt's brand (the session's over the integration's) and language, for the pages after the provider (absent on older flows). */
  branding?: Branding | null;
  locale?: string | null;
  /** PKCE verifier, sealed with the gateway cipher. */
  code_verifier: string | null;
  /** `app_user`: the installation the user authorizes for. */
  installation_id: string | null;
}

export type FlowStore = OneTimeStore<Flow>;

export const stateTtlMs = 10 * 60_000;

export function createFlowStore(storage: Storage): FlowStore {
  // Remembered for an hour after expiry so a late or replayed callback is reported to the
  // customer (event with environment and integration) instead of being an unknown state.
  return createOneTimeStore<Flow>(storage, {
    name: 'oauth-states',
    prefix: 'st_',
    ttlMs: stateTtlMs,
    graceMs: 50 * 60_000,
  });
}

/** The operation named in connection and failure events. */
export const operationOf = (flow: Pick<Flow, 'kind'>): 'oauth' | 'connect' =>
  flow.kind === 'form' ? 'connect' : 'oauth';
