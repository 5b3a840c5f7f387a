import type { ConnectionScope, ConnectionService } from '../../connections/index.js';
import type { ScriptConnection } from '../define/service.js';
import type { ScriptHost } from '../host.js';
import type { ModelCounts, SyncStateStore, SyncTarget } from '../state/sync-state.js';
import { createServiceCalls, type RunState } from './service-calls.js';

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

/** A run's state in the gateway: the connection in the connection store, the checkpoint in the sync's state. */
function gatewayRunState(
  connections: ConnectionService,
  scope: ConnectionScope,
  sync: SyncCallScope | undefined,
): RunState {
  const { environment: env, providerConfigKey: pck, connectionId: cid } = scope;
  return {
    async getConnection(): Promise<ScriptConnection> {
      const c = await connections.require(env, pck, cid);
      return {
        connection_id: c.connection_id,
        provider_config_key: c.provider_config_key,
        provider: c.provider,
        credentials: c.credentials as ScriptConnection['credentials'],
        connection_config: c.connection_config,
        metadata: c.metadata,
        end_user: c.end_user,
      };
    },
    getMetadata: async () => (await connections.require(env, pck, cid)).metadata,
    async setMetadata(metadata, mode) {
      await connections.setMetadata(env, pck, [cid], metadata, mode);
    },
    getCheckpoint: async () => (sync ? (await sync.states.get(sync.target)).checkpoint : null),
    async saveCheckpoint(checkpoint) {
      if (sync) await sync.states.update(sync.target, (state) => ({ ...state, checkpoint }));
    },
  };
}

/** The gateway's side of the script service: the one dispatcher over the gateway's host and stores. */
export function createCallHandler(
  deps: CallDeps,
  scope: ConnectionScope,
  sync: SyncCallScope | undefined,
  ended: AbortSignal,
) {
  return createServiceCalls(
    { host: deps.host, run: gatewayRunState(deps.connections, scope, sync) },
    scope,
    sync,
    ended,
  );
}
