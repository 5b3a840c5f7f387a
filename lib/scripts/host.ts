import type { RecordsEventInput, SyncEventInput, ActionEventInput } from '../webhooks/index.js';

/** Which records: one model of one connection in one environment (the records store's stream). */
export interface RecordsTarget {
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  model: string;
}

/** A proxied call a script makes; the host attaches credentials and keeps it on the provider's host. */
export interface HostProxyRequest {
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  method: string;
  /** Path under the provider's base URL. */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  retries: number;
  /** Aborted when the run ends or times out: the call is cancelled. */
  signal?: AbortSignal;
}

export interface HostProxyResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the provider answered JSON, else the text. */
  data: unknown;
}

/** The records operations scripts use; counts are what the run reports. */
export interface HostRecords {
  save(target: RecordsTarget, records: readonly Record<string, unknown>[]): Promise<{ added: number; updated: number }>;
  /** Merges partial records into the stored ones (ids that are not stored are skipped). */
  update(target: RecordsTarget, partials: readonly Record<string, unknown>[]): Promise<{ updated: number }>;
  delete(target: RecordsTarget, ids: readonly string[]): Promise<{ deleted: number }>;
  /** Full syncs: soft-deletes every record no save touched since `since`. */
  deleteNotSeenSince(target: RecordsTarget, since: Date): Promise<{ deleted: number }>;
  /** Position of the newest change modified after `since`, for the records-available announcement. */
  latestCursorSince(target: RecordsTarget, since: Date): Promise<string | null>;
}

export type ScriptEventInput = SyncEventInput | RecordsEventInput | ActionEventInput;

/**
 * What scripts need from the rest of the gateway, as a port: the proxy, the records store and
 * the webhook sender. `lib/gateway.ts` wires the real services in; tests may pass local fakes.
 */
export interface ScriptHost {
  proxyRequest(request: HostProxyRequest): Promise<HostProxyResponse>;
  records: HostRecords;
  emit(environment: string, event: ScriptEventInput): Promise<void>;
}
