import { PorticoError, type PorticoClient, type ProxyMethod } from '../../client/index.js';
import {
  createServiceCalls,
  type HostProxyRequest,
  type HostProxyResponse,
  type HostRecords,
  type RunState,
  type ScriptCall,
  type SyncRunScope,
} from '../../scripts/local.js';
import type { FixtureRecorder } from './fixtures.js';

export interface DryRunState {
  metadata: Record<string, unknown>;
  /** What setMetadata/updateMetadata would have written, in order. */
  metadataWrites: { mode: 'replace' | 'merge'; metadata: Record<string, unknown> }[];
  /** The checkpoint getCheckpoint answers: `--checkpoint`, then what the run saved. */
  checkpoint: Record<string, unknown> | null;
  checkpointSaved: boolean;
  mode: 'full' | 'incremental' | undefined;
  proxyCalls: number;
}

export interface DryRunCallDeps {
  client: PorticoClient;
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  records: HostRecords;
  fixtures: FixtureRecorder | undefined;
  state: DryRunState;
  /** Syncs: the models the run may write (as the gateway checks); undefined for actions and events. */
  models: readonly string[] | undefined;
}

const plainHeaders = (headers: Headers) => {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
};

const asObject = (value: unknown, what: string): Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be an object`);
  return value as Record<string, unknown>;
};
const nonEmpty = <T extends object>(value: T) => (Object.keys(value).length > 0 ? value : undefined);

/** A proxied call through the gateway's `/proxy`: the credentials stay in the gateway. */
async function proxyRequest(deps: DryRunCallDeps, request: HostProxyRequest): Promise<HostProxyResponse> {
  deps.state.proxyCalls++;
  const params = nonEmpty(request.query);
  const headers = nonEmpty(request.headers);
  let response: HostProxyResponse;
  try {
    const answer = await deps.client.proxy({
      endpoint: request.path,
      method: request.method as ProxyMethod,
      providerConfigKey: deps.providerConfigKey,
      connectionId: deps.connectionId,
      ...(params ? { params } : {}),
      ...(headers ? { headers } : {}),
      ...(request.body !== undefined ? { data: request.body } : {}),
      ...(request.retries > 0 ? { retries: request.retries } : {}),
    });
    response = { status: answer.status, headers: plainHeaders(answer.headers), data: answer.data };
  } catch (error) {
    // A provider's refusal is the script's to handle (it throws ScriptRequestError in the script); the gateway's is not.
    if (!PorticoError.is(error) || error.code !== 'provider_error' || !error.response) throw error;
    response = { status: error.status, headers: plainHeaders(error.response.headers), data: error.response.data };
  }
  deps.fixtures?.save({
    request: {
      method: request.method,
      endpoint: request.path,
      ...(params ? { params } : {}),
      ...(headers ? { headers } : {}),
      ...(request.body !== undefined ? { data: request.body } : {}),
    },
    response,
  });
  return response;
}

/** The run's state, read from the gateway once and kept in memory: every write is collected, none stored. */
function dryRunState(deps: DryRunCallDeps): RunState {
  const { state } = deps;
  return {
    async getConnection() {
      const c = await deps.client.getConnection(deps.providerConfigKey, deps.connectionId);
      return {
        connection_id: c.connection_id,
        provider_config_key: c.provider_config_key,
        provider: c.provider,
        credentials: c.credentials,
        connection_config: c.connection_config,
        metadata: state.metadata,
        end_user: c.end_user,
      };
    },
    getMetadata: async () => structuredClone(state.metadata),
    async setMetadata(metadata, mode) {
      state.metadata = mode === 'merge' ? { ...state.metadata, ...metadata } : { ...metadata };
      state.metadataWrites.push({ mode, metadata });
    },
    getCheckpoint: async () => structuredClone(state.checkpoint),
    async saveCheckpoint(checkpoint) {
      state.checkpoint = asObject(checkpoint, 'checkpoint');
      state.checkpointSaved = true;
    },
  };
}

/**
 * The service calls of a script run locally, through the gateway's own dispatcher: proxied calls
 * go to the gateway, reads come from it, and every write (records, metadata, checkpoints) is
 * collected instead of stored.
 */
export function createDryRunCalls(deps: DryRunCallDeps): ScriptCall {
  const host = { proxyRequest: (request: HostProxyRequest) => proxyRequest(deps, request), records: deps.records };
  const sync: SyncRunScope | undefined =
    deps.models && deps.state.mode ? { models: deps.models, mode: deps.state.mode, counts: {} } : undefined;
  // A local run has no deadline of its own: the signal never fires.
  const never = new AbortController().signal;
  const scope = {
    environment: deps.environment,
    providerConfigKey: deps.providerConfigKey,
    connectionId: deps.connectionId,
  };
  return createServiceCalls({ host, run: dryRunState(deps) }, scope, sync, never);
}
