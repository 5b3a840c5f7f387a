import type { EndUser } from '../connections/index.js';

/** An error as webhook payloads carry it. */
export interface WebhookError {
  code: string;
  message: string;
  /** The provider's own error, when a provider refused (e.g. a token exchange). */
  provider_error?: { error: string; description: string } | undefined;
}

/** Authorization news about one connection. */
export interface AuthEventInput {
  type: 'auth';
  /** Null for a failed authorization attempt that never named a connection. */
  connection_id: string | null;
  provider_config_key: string;
  provider?: string | undefined;
  /** creation and override: the connection was stored; refresh: its credentials failed (success false) or work again (success true); deletion: it was removed. */
  operation: 'creation' | 'override' | 'refresh' | 'deletion';
  success: boolean;
  auth_mode?: string | undefined;
  /** How the connection arrived: imported through the API, the OAuth flow, or the connect UI. */
  source?: 'import' | 'oauth' | 'connect' | undefined;
  end_user?: EndUser | null | undefined;
  error?: WebhookError | undefined;
}

/** The outcome of one sync run for one model. */
export interface SyncEventInput {
  type: 'sync';
  connection_id: string;
  provider_config_key: string;
  provider?: string | undefined;
  sync_name: string;
  model: string;
  variant?: string | undefined;
  success: boolean;
  /** Records added, updated and deleted by this run; zeros when it failed. */
  results: { added: number; updated: number; deleted: number };
  started_at: string;
  finished_at: string;
  error?: WebhookError | undefined;
}

/** New synced records can be fetched: `GET /records?model=…&cursor=<cursor>`. */
export interface RecordsEventInput {
  type: 'records';
  connection_id: string;
  provider_config_key: string;
  provider?: string | undefined;
  model: string;
  variant?: string | undefined;
  /** How many records changed since the previous announcement. */
  count: number;
  /** Records after this cursor are new; null when the model had no records before. */
  cursor: string | null;
  /**
   * The cursor of the newest record this announcement covers: the records announced are those
   * after `cursor` up to this one (`GET /records?cursor=<cursor>`), and the next announcement's
   * `cursor`. So replayed announcements agree with `GET /records`.
   */
  latest_cursor?: string | null | undefined;
  /** Records modified after this time are new (less precise than `cursor`). */
  modified_after: string;
}

/** The result of an asynchronous action run. */
export interface ActionEventInput {
  type: 'action';
  connection_id: string;
  provider_config_key: string;
  provider?: string | undefined;
  action_name: string;
  /** The id the async action call returned. */
  action_id: string;
  success: boolean;
  output?: unknown;
  error?: WebhookError | undefined;
}

/** A provider's webhook, verified and routed, passed on unchanged in `payload`. */
export interface ForwardEventInput {
  type: 'forward';
  /** Null when no connection matched the payload. */
  connection_id: string | null;
  provider_config_key: string;
  provider?: string | undefined;
  /** The provider's body: parsed JSON, or the raw text when it was not JSON. */
  payload: unknown;
  /** The provider's event headers (e.g. `x-github-event`), lowercase names. */
  provider_headers: Record<string, string>;
}

export type WebhookEventInput =
  AuthEventInput | SyncEventInput | RecordsEventInput | ActionEventInput | ForwardEventInput;
export type WebhookEventType = WebhookEventInput['type'];
export const webhookEventTypes = [
  'auth',
  'sync',
  'records',
  'action',
  'forward',
] as const satisfies readonly WebhookEventType[];

/** What the customer receives: the event plus the fields every webhook carries. */
type WithoutProvider<T> = T extends unknown ? Omit<T, 'provider'> : never;
export type WebhookPayload = WithoutProvider<WebhookEventInput> & {
  /** Unique per event; the same on every attempt and on the secondary URL, so receivers can deduplicate. */
  delivery_id: string;
  created_at: string;
  environment: string;
  provider: string | null;
};
