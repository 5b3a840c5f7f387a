import type { Connection, ConnectionService } from '../../connections/index.js';
import type { Coordinator } from '../../coordination/index.js';
import type { Logger, LogLevel } from '../../http/logger.js';
import type { Catalog } from '../../providers/index.js';
import type { PaginateConfig } from '../define/service.js';
import type { ScriptHost } from '../host.js';
import type { LogStore } from '../logs/log-store.js';
import type { ScriptRegistry } from '../registry/registry.js';
import type { TaskOutcome, WorkerPool } from '../runtime/pool.js';
import type { RunContext } from '../runtime/protocol.js';
import type { ActionRunStore } from '../state/action-runs.js';
import type { SyncStateStore } from '../state/sync-state.js';

export interface RunLimits {
  syncTimeoutMs: number;
  /**
   * A sync run's lock lapses this long after its holder stops renewing it (a crash). Shorter
   * than the queue's lease, so the job a crash left behind finds the lock free when it runs again.
   */
  syncLockMs: number;
  actionTimeoutMs: number;
  /** Spec 7 and 8: 2 MB since 1 Oct 2025. */
  outputLimitBytes: number;
}

/** Everything a run needs, handed down by the scripts feature. */
export interface RunnerDeps {
  pool: WorkerPool;
  registry: ScriptRegistry;
  states: SyncStateStore;
  logs: LogStore;
  actionRuns: ActionRunStore;
  host: ScriptHost;
  connections: ConnectionService;
  catalog: Catalog;
  coordinator: Coordinator;
  limits: RunLimits;
  /** The environment's stored minimum level (`SERVICE_LOGGER_LEVEL` / `Environment.scriptLogLevel`). */
  levelOf(environment: string): LogLevel | undefined;
  logger: Logger;
}

/** What the worker needs to know about the connection: provider, base URL, catalog pagination. */
export function runContext(deps: RunnerDeps, connection: Connection, runId: string): RunContext {
  const provider = deps.catalog.get(connection.provider);
  const template = provider?.proxy.base_url ?? 'http://invalid.invalid';
  const baseUrl = template.replace(
    /\$\{connection_config\.([a-zA-Z0-9_]+)\}/g,
    (_whole, name: string) => connection.connection_config[name] ?? provider?.connection_config_defaults?.[name] ?? '',
  );
  return {
    runId,
    environment: connection.environment,
    providerConfigKey: connection.provider_config_key,
    connectionId: connection.connection_id,
    provider: connection.provider,
    baseUrl,
    paginate: (provider?.proxy.paginate as PaginateConfig | undefined) ?? null,
  };
}

/** A failed task as a stable error code and a message safe for logs and API answers. */
export function failureOf(outcome: Extract<TaskOutcome, { ok: false }>): {
  code: string;
  message: string;
  field?: string;
  payload?: unknown;
} {
  const { error } = outcome;
  const code = {
    timeout: 'script_timeout',
    memory: 'script_memory_exceeded',
    crashed: 'script_crashed',
    closed: 'script_interrupted',
    script_error: error.code ?? 'script_error',
  }[outcome.reason];
  return {
    code,
    message: error.message,
    ...(error.field !== undefined ? { field: error.field } : {}),
    ...(error.payload !== undefined ? { payload: error.payload } : {}),
  };
}
