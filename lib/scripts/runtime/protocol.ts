import type { LogLevel } from '../../http/logger.js';
import type { PaginateConfig } from '../define/service.js';

/** What a worker learns about a script by importing it; kept with the registration. */
export interface ScriptManifest {
  type: 'sync' | 'action' | 'on-event';
  description: string | null;
  version: string | null;
  /** Syncs. */
  frequency?: string;
  syncType?: 'full' | 'incremental';
  autoStart?: boolean;
  detectDeletes?: boolean;
  /** Model name → JSON Schema (null when the schema cannot be expressed). */
  models?: Record<string, unknown>;
  /** Actions. */
  input?: unknown;
  output?: unknown;
  /** On-event scripts. */
  event?: string;
}

/** Who a run works for, and what its proxied calls need to know. */
export interface RunContext {
  runId: string;
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  provider: string;
  /** The provider's proxy base URL, placeholders filled: `paginate` turns next-page links into paths under it. */
  baseUrl: string;
  /** The catalog's pagination for this provider, if any. */
  paginate: PaginateConfig | null;
}

export type Task =
  /** `environment`: whose process reads the module (a deploy's); none for the operator's registered modules. */
  | { type: 'inspect'; environment?: string }
  | { type: 'sync'; context: RunContext; mode: 'full' | 'incremental'; lastSyncDate: string | null }
  | { type: 'action'; context: RunContext; input: unknown; outputLimitBytes: number }
  | { type: 'on-event'; context: RunContext };

export interface SerializedError {
  name: string;
  message: string;
  /** Machine-readable reason: `invalid_input`, `invalid_output`, `output_too_large`, `action_error`, `invalid_record`, `invalid_script`. */
  code?: string;
  field?: string;
  payload?: unknown;
  stack?: string;
}

export type ToWorker =
  | { type: 'run'; file: string; task: Task }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: SerializedError };

export type FromWorker =
  /** The script's module is loaded: the run's time limit starts now. */
  | { type: 'started' }
  | { type: 'call'; id: number; method: string; args: unknown[] }
  | { type: 'log'; level: LogLevel; message: string }
  | { type: 'done'; ok: true; value: unknown }
  | { type: 'done'; ok: false; error: SerializedError };

/** An action's result as the worker hands it back: serialized once, measured once. */
export interface ActionOutput {
  json: string;
  bytes: number;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const extra = error as Error & { code?: unknown; field?: unknown; payload?: unknown };
    return {
      name: error.name,
      message: error.message,
      ...(typeof extra.code === 'string' ? { code: extra.code } : {}),
      ...(typeof extra.field === 'string' ? { field: extra.field } : {}),
      ...(extra.payload !== undefined ? { payload: toPlain(extra.payload) } : {}),
      ...(error.stack ? { stack: error.stack } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

/** Drops what structured clone or JSON cannot carry (functions, cycles) from a payload. */
function toPlain(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}
