import type { StreamRef } from '../records/index.js';
import type { RecordsEventInput, SyncEventInput, ActionEventInput } from '../webhooks/index.js';
import type { BatchResult } from './define/service.js';

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

/**
 * The records operations scripts use, named as the script calls them; each forwards to the
 * records store, which does the work under the stream's lock. Counts are what the run reports.
 */
export interface HostRecords {
  batchSave(target: StreamRef, records: readonly Record<string, unknown>[]): Promise<BatchResult>;
  /** Merges partial records into the stored ones (ids that are not stored are skipped). */
  batchUpdate(target: StreamRef, partials: readonly Record<string, unknown>[]): Promise<BatchResult>;
  batchDelete(target: StreamRef, ids: readonly string[]): Promise<BatchResult>;
  /** Full syncs: soft-deletes every record no save touched since `since`. */
  deleteNotSeenSince(target: StreamRef, since: Date): Promise<{ deleted: number }>;
  /** Position of the newest change modified after `since`, for the records-available announcement. */
  latestCursorSince(target: StreamRef, since: Date): Promise<string | null>;
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
