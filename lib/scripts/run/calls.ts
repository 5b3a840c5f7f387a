import type { ConnectionScope, ConnectionService } from '../../connections/index.js';
import type { StreamRef } from '../../records/index.js';
import type { BatchResult, ScriptConnection } from '../define/service.js';
import type { ScriptHost } from '../host.js';
import type { ModelCounts, SyncStateStore, SyncTarget } from '../state/sync-state.js';
import { toHostRequest } from './proxy-call.js';

/** What only a sync's calls need. */
export interface SyncCallScope {
  target: SyncTarget;
  states: SyncStateStore;
  models: readonly string[];
  mode: 'full' | 'incremental';
  /** Filled as the run goes: what each model's batches changed. */
  counts: ModelCounts;
}

export interface CallDeps {
  host: ScriptHost;
  connections: ConnectionService;
}

type Handler = (args: unknown[]) => Promise<unknown>;

/**
 * The gateway's side of the script service: each method the script process may call, doing the
 * real work (proxy, records, metadata) for this run's connection and environment only: no
 * argument names a connection or an environment. `ended` aborts when the run ends or times out:
 * later calls are refused and proxied calls in flight are cancelled.
 */
export function createCallHandler(deps: CallDeps, scope: ConnectionScope, sync: SyncCallScope | undefined, ended: AbortSignal) {
  const { environment: env, providerConfigKey: pck, connectionId: cid } = scope;
  const records = (model: unknown) => {
    if (!sync || typeof model !== 'string' || !sync.models.includes(model)) throw new Error(`not a model of this sync: ${String(model)}`);
    sync.counts[model] ??= { added: 0, updated: 0, deleted: 0 };
    return { target: { environment: env, providerConfigKey: pck, connectionId: cid, model }, counts: sync.counts[model] };
  };
  /** Runs one records operation on a model of this sync and adds what it changed to the run's counts. */
  const counted = async (model: unknown, operation: (target: StreamRef) => Promise<BatchResult>): Promise<BatchResult> => {
    const { target, counts } = records(model);
    const result = await operation(target);
    counts.added += result.added;
    counts.updated += result.updated;
    counts.deleted += result.deleted;
    return result;
  };
  const list = <T>(value: unknown) => {
    if (!Array.isArray(value)) throw new Error('records must be an array');
    return value as T[];
  };

  const handlers: Record<string, Handler> = {
    proxy: async ([config]) => deps.host.proxyRequest({ ...toHostRequest({ environment: env, providerConfigKey: pck, connectionId: cid }, config), signal: ended }),
    getConnection: async (): Promise<ScriptConnection> => {
      const c = await deps.connections.require(env, pck, cid);
      return {
        connection_id: c.connection_id, provider_config_key: c.provider_config_key, provider: c.provider,
        credentials: c.credentials as ScriptConnection['credentials'], connection_config: c.connection_config,
        metadata: c.metadata, end_user: c.end_user,
      };
    },
    getMetadata: async () => (await deps.connections.require(env, pck, cid)).metadata,
    setMetadata: async ([metadata, mode]) => {
      if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw new Error('metadata must be an object');
      await deps.connections.setMetadata(env, pck, [cid], metadata as Record<string, unknown>, mode === 'merge' ? 'merge' : 'replace');
      return null;
    },
    batchSave: ([model, batch]) => counted(model, (target) => deps.host.records.batchSave(target, list(batch))),
    batchUpdate: ([model, batch]) => counted(model, (target) => deps.host.records.batchUpdate(target, list(batch))),
    batchDelete: ([model, ids]) => counted(model, (target) => deps.host.records.batchDelete(target, list<string>(ids))),
    getCheckpoint: async () => {
      if (!sync) throw new Error('checkpoints belong to syncs');
      // A full run starts from nothing, whatever earlier runs saved.
      return sync.mode === 'full' ? null : (await sync.states.get(sync.target)).checkpoint;
    },
    saveCheckpoint: async ([checkpoint]) => {
      if (!sync) throw new Error('checkpoints belong to syncs');
      await sync.states.update(sync.target, (state) => ({ ...state, checkpoint: checkpoint as Record<string, unknown> }));
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
