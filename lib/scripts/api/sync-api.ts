import type { ConnectionService } from '../../connections/index.js';
import { fail } from '../../errors.js';
import type { LogLevel } from '../../http/logger.js';
import type { ScriptEntry, ScriptRegistry } from '../registry/registry.js';
import type { ScriptQueue } from '../schedule/jobs.js';
import type { RunInfo, SyncState, SyncStateStore, SyncTarget } from '../state/sync-state.js';

export interface SyncSelection {
  providerConfigKey: string;
  /** Sync names; empty or absent: every sync of the integration. */
  syncs?: readonly string[] | undefined;
  /** Absent: every connection of the integration. */
  connectionId?: string | undefined;
}

export interface SyncStatus {
  sync: string;
  provider_config_key: string;
  connection_id: string;
  /** The latest run's state; `idle` before the first run. */
  status: 'running' | 'success' | 'failed' | 'idle';
  /** Scheduled runs are skipped (paused, or an `autoStart: false` sync not started yet). */
  paused: boolean;
  frequency: string | null;
  sync_type: 'full' | 'incremental';
  next_run_at: string | null;
  latest_run: RunInfo | null;
}

export interface SyncApiDeps {
  registry: ScriptRegistry;
  states: SyncStateStore;
  queue: ScriptQueue;
  connections: ConnectionService;
  scheduleId(environment: string, providerConfigKey: string, sync: string): string;
}

/** Sync control behind `POST /sync/trigger|pause|start` and `GET /sync/status`, usable in process too. */
export function createSyncApi(deps: SyncApiDeps) {
  const select = async (env: string, selection: SyncSelection) => {
    const pck = selection.providerConfigKey;
    const all = (await deps.registry.list(env, pck)).filter((e) => e.manifest.type === 'sync');
    const names =
      selection.syncs && selection.syncs.length > 0 ? [...new Set(selection.syncs)] : all.map((e) => e.name);
    const entries = names.map(
      (name) =>
        all.find((e) => e.name === name) ??
        fail('unknown_script', `No sync "${name}" is enabled for integration "${pck}".`, { field: 'syncs' }),
    );
    let connectionIds: string[];
    if (selection.connectionId !== undefined) {
      await deps.connections.require(env, pck, selection.connectionId);
      connectionIds = [selection.connectionId];
    } else {
      connectionIds = [];
      for await (const cid of deps.connections.idsOf(env, pck)) connectionIds.push(cid);
    }
    const targets: { entry: ScriptEntry; target: SyncTarget }[] = [];
    for (const entry of entries) {
      for (const connectionId of connectionIds)
        targets.push({ entry, target: { environment: env, providerConfigKey: pck, connectionId, sync: entry.name } });
    }
    return targets;
  };
  const isPaused = (state: SyncState, entry: ScriptEntry) => state.paused ?? entry.manifest.autoStart === false;
  const pick = (t: SyncTarget) => ({ sync: t.sync, connection_id: t.connectionId });

  return {
    /** Queues one run per selected connection and sync; ones already running are reported, not queued. */
    async trigger(
      env: string,
      selection: SyncSelection & { mode: 'full' | 'incremental'; logLevel?: LogLevel | undefined },
    ) {
      const queued: { sync: string; connection_id: string; mode: 'full' | 'incremental' }[] = [];
      const running: { sync: string; connection_id: string }[] = [];
      for (const { entry, target } of await select(env, selection)) {
        if ((await deps.states.get(target)).latest_run?.status === 'running') {
          running.push(pick(target));
          continue;
        }
        await deps.queue.enqueue({
          type: 'sync',
          ...target,
          mode: selection.mode,
          trigger: 'api',
          ...(selection.logLevel ? { logLevel: selection.logLevel } : {}),
        });
        // A sync that is not incremental always refetches everything: that is the run the caller gets.
        queued.push({ ...pick(target), mode: entry.manifest.syncType === 'incremental' ? selection.mode : 'full' });
      }
      return { queued, already_running: running };
    },
    /** Scheduled runs skip paused syncs; a run in progress finishes. */
    async pause(env: string, selection: SyncSelection) {
      const targets = await select(env, selection);
      for (const { target } of targets) await deps.states.update(target, (s) => ({ ...s, paused: true }));
      return targets.map(({ target }) => pick(target));
    },
    /** Resumes schedules; a sync that never ran for a connection runs now. */
    async start(env: string, selection: SyncSelection) {
      const targets = await select(env, selection);
      for (const { target } of targets) {
        const state = await deps.states.update(target, (s) => ({ ...s, paused: false }));
        if (!state.latest_run)
          await deps.queue.enqueue({ type: 'sync', ...target, mode: 'incremental', trigger: 'api' });
      }
      return targets.map(({ target }) => pick(target));
    },
    async status(env: string, selection: SyncSelection): Promise<SyncStatus[]> {
      const out: SyncStatus[] = [];
      const next = new Map<string, string | null>();
      for (const { entry, target } of await select(env, selection)) {
        const state = await deps.states.get(target);
        const paused = isPaused(state, entry);
        if (!next.has(entry.name)) {
          const at = await deps.queue.nextRun(deps.scheduleId(env, target.providerConfigKey, entry.name));
          next.set(entry.name, at === null ? null : new Date(at).toISOString());
        }
        const latest = state.latest_run;
        out.push({
          sync: entry.name,
          provider_config_key: target.providerConfigKey,
          connection_id: target.connectionId,
          status: latest?.status ?? 'idle',
          paused,
          frequency: entry.manifest.frequency ?? null,
          sync_type: entry.manifest.syncType ?? 'full',
          next_run_at: paused ? null : (next.get(entry.name) ?? null),
          latest_run: latest,
        });
      }
      return out;
    },
  };
}

export type SyncApi = ReturnType<typeof createSyncApi>;
