import type { ActionApi } from '../api/action-api.js';
import type { SyncApi } from '../api/sync-api.js';
import type { LogStore } from '../logs/log-store.js';
import type { ScriptEntry, ScriptRegistry } from '../registry/registry.js';

/** What the HTTP routes call: the feature's programmatic API. */
export interface RoutesApi {
  syncs: SyncApi;
  actions: ActionApi;
  logs: LogStore;
  registry: ScriptRegistry;
  reschedule(environment: string, previous?: readonly ScriptEntry[]): Promise<void>;
}
