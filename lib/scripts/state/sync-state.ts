import type { ConnectionScope } from '../../connections/index.js';
import type { Storage } from '../../storage/index.js';

export type ModelCounts = Record<string, { added: number; updated: number; deleted: number }>;

export interface RunInfo {
  run_id: string;
  status: 'running' | 'success' | 'failed';
  mode: 'full' | 'incremental';
  trigger: 'schedule' | 'api' | 'connection';
  /** The schedule slot a scheduled run belongs to. */
  scheduled_at: string | null;
  started_at: string;
  finished_at: string | null;
  /** Per model: what this run changed. */
  results: ModelCounts;
  error: { code: string; message: string } | null;
}

/** One sync for one connection. */
export interface SyncState {
  /** Null until someone pauses or starts it: then the sync's `autoStart` decides. */
  paused: boolean | null;
  checkpoint: Record<string, unknown> | null;
  /** Start of the last successful run: `lastSyncDate` of the next. */
  last_success_started_at: string | null;
  latest_run: RunInfo | null;
  /** Per model, the position of the latest change the customer was told about (records webhook). */
  announced_cursors: Record<string, string | null>;
}

/** Which sync: one script of one connection. */
export interface SyncTarget extends ConnectionScope {
  sync: string;
}

export const emptySyncState = (): SyncState => ({
  paused: null,
  checkpoint: null,
  last_success_started_at: null,
  latest_run: null,
  announced_cursors: {},
});

export interface SyncStateStore {
  get(target: SyncTarget): Promise<SyncState>;
  /** Read-modify-write under the target's lock. */
  update(target: SyncTarget, change: (state: SyncState) => SyncState): Promise<SyncState>;
  delete(target: SyncTarget): Promise<void>;
}

const keyOf = (t: SyncTarget) =>
  [t.environment, t.providerConfigKey, t.connectionId, t.sync].map((p) => `${p.length}:${p}`).join('|');

export function createSyncStateStore(storage: Storage): SyncStateStore {
  const states = storage.keyv<SyncState>('script-sync-state');
  return {
    async get(target) {
      return (await states.get(keyOf(target))) ?? emptySyncState();
    },
    update(target, change) {
      const key = keyOf(target);
      return storage.coordinator.withLock(`script-sync-state:${key}`, async () => {
        const next = change((await states.get(key)) ?? emptySyncState());
        await states.set(key, next);
        return next;
      });
    },
    async delete(target) {
      await states.delete(keyOf(target));
    },
  };
}
