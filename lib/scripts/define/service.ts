import type { PaginationStyle } from '../../providers/protocol/index.js';
import type { LogLevel } from '../../http/logger.js';

/** One call to the provider through the gateway's proxy: credentials attached, retries available. */
export interface ProxyConfig {
  /** A path under the provider's proxy base URL, e.g. `/v1.0/users`. Never a full URL. */
  endpoint: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  params?: Record<string, string | number | boolean | (string | number)[]>;
  headers?: Record<string, string>;
  /** Sent as JSON (objects) or as is (strings). */
  data?: unknown;
  /** Extra attempts on 429, 5xx and network errors (the proxy's backoff). Default 0. */
  retries?: number;
}

export interface ProxyResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  data: T;
}

/** Overrides the catalog's pagination for one `paginate` call: a style, with an optional page size. */
export type PaginateConfig = PaginationStyle & { limit?: number };

/** The connection a run works for, as `getConnection()` returns it. */
export interface ScriptConnection {
  connection_id: string;
  provider_config_key: string;
  provider: string;
  credentials: Record<string, unknown> & { type: string };
  connection_config: Record<string, string>;
  metadata: Record<string, unknown>;
  end_user: { id: string; email?: string | undefined; display_name?: string | undefined } | null;
}

export interface LogOptions {
  /** Default `info`. Stored when at or above the run's threshold (default `warn`). */
  level?: LogLevel;
}

/** What every script receives. */
export interface ScriptService<Metadata = Record<string, unknown>> {
  readonly environment: string;
  readonly providerConfigKey: string;
  readonly connectionId: string;
  readonly provider: string;
  /** Id of this run; its logs are under `GET /logs?run_id=`. */
  readonly runId: string;
  proxy<T = unknown>(config: ProxyConfig): Promise<ProxyResponse<T>>;
  get<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  post<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  put<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  patch<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  delete<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  /** Pages through a list with the catalog's pagination (or `config.paginate`), one array per page. */
  paginate<T = unknown>(config: ProxyConfig & { paginate?: PaginateConfig }): AsyncGenerator<T[], void, undefined>;
  getConnection(): Promise<ScriptConnection>;
  getMetadata(): Promise<Metadata>;
  /** Replaces the connection's metadata (validated by the script's `metadata` schema when it has one). */
  setMetadata(metadata: Metadata): Promise<void>;
  /** Merges into the connection's metadata. */
  updateMetadata(metadata: Partial<Metadata>): Promise<void>;
  log(message: string, options?: LogOptions): Promise<void>;
}

/** Counts one batch call changed. */
export interface BatchResult {
  added: number;
  updated: number;
  deleted: number;
}

/** What a sync receives: the script service plus records and checkpoints. */
export interface SyncService<
  Models extends Record<string, unknown>,
  Metadata,
  Checkpoint,
> extends ScriptService<Metadata> {
  /** `full`: everything is fetched, and what this run does not save is deleted. `incremental`: from the checkpoint. */
  readonly mode: 'full' | 'incremental';
  /** When the last successful run of this sync for this connection started; null on the first run. */
  readonly lastSyncDate: Date | null;
  /** Adds or replaces records, each validated against the model's schema. */
  batchSave<K extends keyof Models & string>(records: Models[K][], model: K): Promise<BatchResult>;
  /** Merges partial records (`id` required) into stored ones. */
  batchUpdate<K extends keyof Models & string>(
    records: (Partial<Models[K]> & { id: string | number })[],
    model: K,
  ): Promise<BatchResult>;
  /** Marks records deleted (only `id` is read). */
  batchDelete<K extends keyof Models & string>(records: { id: string | number }[], model: K): Promise<BatchResult>;
  /** The checkpoint saved by earlier incremental runs; null in a full run or before the first save. */
  getCheckpoint(): Promise<Checkpoint | null>;
  /** Stored at once, so a later run resumes from here even if this one fails afterwards. */
  saveCheckpoint(checkpoint: Checkpoint): Promise<void>;
}

export type ActionService<Metadata> = ScriptService<Metadata>;
