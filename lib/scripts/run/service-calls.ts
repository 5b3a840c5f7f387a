import type { ConnectionScope } from '../../connections/index.js';
import type { StreamRef } from '../../records/index.js';
import type { BatchResult, ScriptConnection } from '../define/service.js';
import type { ScriptHost } from '../host.js';
import { toHostRequest } from './proxy-call.js';

/**
 * The connection-side state one run reads and writes. The gateway keeps it in its stores; the
 * CLI's dry run reads it from a gateway and keeps every write in memory.
 */
export interface RunState {
  getConnection(): Promise<ScriptConnection>;
  getMetadata(): Promise<Record<string, unknown>>;
  setMetadata(metadata: Record<string, unknown>, mode: 'replace' | 'merge'): Promise<void>;
  /** The checkpoint earlier incremental runs saved (syncs only). */
  getCheckpoint(): Promise<Record<string, unknown> | null>;
  saveCheckpoint(checkpoint: Record<string, unknown>): Promise<void>;
}

/** What a run's service calls reach: the host (proxy and records) and the run's state. */
export interface ServicePorts {
  host: Pick<ScriptHost, 'proxyRequest' | 'records'>;
  run: RunState;
}

/** A sync's side of a run: its models, its mode, and the counts its batches add up to. */
export interface SyncRunScope {
  models: readonly string[];
  mode: 'full' | 'incremental';
  counts: Record<string, BatchResult>;
}

type Handler = (args: unknown[]) => Promise<unknown>;

const list = <T>(value: unknown) => {
  if (!Array.isArray(value)) throw new Error('records must be an array');
  return value as T[];
};

/**
 * The one dispatcher of a script's service calls, in the gateway and in the CLI's dry run: each
 * method the script process may call, for this run's connection only (no argument names a
 * connection or an environment). `ended` aborts when the run ends or times out: later calls are
 * refused and proxied calls in flight are cancelled.
 */
export function createServiceCalls(
  ports: ServicePorts,
  scope: ConnectionScope,
  sync: SyncRunScope | undefined,
  ended: AbortSignal,
) {
  const { host, run } = ports;
  /** Runs one records operation on a model of this sync and adds what it changed to the run's counts. */
  const counted = async (
    model: unknown,
    operation: (target: StreamRef) => Promise<BatchResult>,
  ): Promise<BatchResult> => {
    if (!sync || typeof model !== 'string' || !sync.models.includes(model))
      throw new Error(`not a model of this sync: ${String(model)}`);
    const counts = (sync.counts[model] ??= { added: 0, updated: 0, deleted: 0 });
    const result = await operation({ ...scope, model });
    counts.added += result.added;
    counts.updated += result.updated;
    counts.deleted += result.deleted;
    return result;
  };

  const handlers: Record<string, Handler> = {
    proxy: async ([config]) => host.proxyRequest({ ...toHostRequest(scope, config), signal: ended }),
    getConnection: () => run.getConnection(),
    getMetadata: () => run.getMetadata(),
    setMetadata: async ([metadata, mode]) => {
      if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
        throw new Error('metadata must be an object');
      await run.setMetadata(metadata as Record<string, unknown>, mode === 'merge' ? 'merge' : 'replace');
      return null;
    },
    batchSave: ([model, batch]) => counted(model, (target) => host.records.batchSave(target, list(batch))),
    batchUpdate: ([model, batch]) => counted(model, (target) => host.records.batchUpdate(target, list(batch))),
    batchDelete: ([model, ids]) => counted(model, (target) => host.records.batchDelete(target, list<string>(ids))),
    getCheckpoint: async () => {
      if (!sync) throw new Error('checkpoints belong to syncs');
      // A full run starts from nothing, whatever earlier runs saved.
      return sync.mode === 'full' ? null : run.getCheckpoint();
    },
    saveCheckpoint: async ([checkpoint]) => {
      if (!sync) throw new Error('checkpoints belong to syncs');
      await run.saveCheckpoint(checkpoint as Record<string, unknown>);
      return null;
    },
  };

  return async (method: string, args: unknown[]): Promise<unknown> => {
    if (ended.aborted) throw new Error(`${method}: the run has ended`);
    const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
    if (!handler) throw new Error(`unknown service call ${method}`);
    return handler(args);
  };
}
