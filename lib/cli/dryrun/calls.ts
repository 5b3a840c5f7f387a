import { PorticoError, type PorticoClient, type ProxyMethod } from '../../client/index.js';
import type { ScriptCall } from '../../scripts/local.js';
import { checkProxyConfig } from '../../scripts/run/proxy-call.js';
import type { FixtureRecorder } from './fixtures.js';
import type { RecordTracker } from './records.js';

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
  providerConfigKey: string;
  connectionId: string;
  records: RecordTracker;
  fixtures: FixtureRecorder | undefined;
  state: DryRunState;
}

const plainHeaders = (headers: Headers) => {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => { out[name] = value; });
  return out;
};

const asObject = (value: unknown, what: string): Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be an object`);
  return value as Record<string, unknown>;
};
const list = <T>(value: unknown): T[] => {
  if (!Array.isArray(value)) throw new Error('records must be an array');
  return value as T[];
};

/** A proxied call through the gateway's `/proxy`: the credentials stay in the gateway. */
async function proxy(deps: DryRunCallDeps, raw: unknown) {
  // The gateway's own rule for scripts: a path under the provider's base URL, never a URL.
  const { config, endpoint, method } = checkProxyConfig(raw);
  deps.state.proxyCalls++;
  let response: { status: number; headers: Record<string, string>; data: unknown };
  try {
    const answer = await deps.client.proxy({
      endpoint, method: method as ProxyMethod, providerConfigKey: deps.providerConfigKey, connectionId: deps.connectionId,
      ...(config.params ? { params: config.params } : {}),
      ...(config.headers ? { headers: config.headers } : {}),
      ...(config.data !== undefined ? { data: config.data } : {}),
      ...(config.retries !== undefined ? { retries: config.retries } : {}),
    });
    response = { status: answer.status, headers: plainHeaders(answer.headers), data: answer.data };
  } catch (error) {
    // A provider's refusal is the script's to handle (it throws ScriptRequestError in the script); the gateway's is not.
    if (!PorticoError.is(error) || error.code !== 'provider_error' || !error.response) throw error;
    response = { status: error.status, headers: plainHeaders(error.response.headers), data: error.response.data };
  }
  deps.fixtures?.save({
    request: { method, endpoint, ...(config.params ? { params: config.params } : {}), ...(config.headers ? { headers: config.headers } : {}), ...(config.data !== undefined ? { data: config.data } : {}) },
    response,
  });
  return response;
}

/**
 * The service calls of a script run locally: proxied calls go to the gateway, reads come from
 * it, and every write (records, metadata, checkpoints) is collected instead of stored.
 */
export function createDryRunCalls(deps: DryRunCallDeps): ScriptCall {
  const { state, records } = deps;
  const handlers: Record<string, (args: unknown[]) => Promise<unknown>> = {
    proxy: ([config]) => proxy(deps, config),
    getConnection: async () => {
      const c = await deps.client.getConnection(deps.providerConfigKey, deps.connectionId);
      return {
        connection_id: c.connection_id, provider_config_key: c.provider_config_key, provider: c.provider, credentials: c.credentials,
        connection_config: c.connection_config, metadata: state.metadata, end_user: c.end_user,
      };
    },
    getMetadata: async () => structuredClone(state.metadata),
    setMetadata: async ([metadata, mode]) => {
      const value = asObject(metadata, 'metadata');
      const merge = mode === 'merge';
      state.metadata = merge ? { ...state.metadata, ...value } : { ...value };
      state.metadataWrites.push({ mode: merge ? 'merge' : 'replace', metadata: value });
      return null;
    },
    batchSave: async ([model, batch]) => records.save(String(model), list(batch)),
    batchUpdate: async ([model, batch]) => records.update(String(model), list(batch)),
    batchDelete: async ([model, ids]) => records.delete(String(model), list<string>(ids)),
    getCheckpoint: async () => (state.mode === 'incremental' ? structuredClone(state.checkpoint) : null),
    saveCheckpoint: async ([checkpoint]) => {
      state.checkpoint = asObject(checkpoint, 'checkpoint');
      state.checkpointSaved = true;
      return null;
    },
  };
  return async (method, args) => {
    const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
    if (!handler) throw new Error(`unknown service call ${method}`);
    return handler(args);
  };
}
