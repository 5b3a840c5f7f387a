import { mkdirSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConnectionService } from '../connections/index.js';
import type { Environment } from '../environments/index.js';
import type { EventBus } from '../events/index.js';
import type { Logger, LogLevel } from '../http/logger.js';
import type { Catalog } from '../providers/index.js';
import { queueDefaults } from '../queue/index.js';
import type { Storage } from '../storage/index.js';
import { createActionApi } from './api/action-api.js';
import { createSyncApi } from './api/sync-api.js';
import type { ScriptHost } from './host.js';
import { parseStoredLevel } from './logs/levels.js';
import { createLogStore } from './logs/log-store.js';
import {
  actionOutputLimitBytes,
  resolveScriptsOptions,
  type ResolvedScriptsOptions,
  type ScriptsOptions,
} from './options.js';
import { createBundleStore } from './registry/bundles.js';
import { createScriptRegistry, type ScriptEntry, type ScriptRegistry } from './registry/registry.js';
import { runOnEvent } from './run/event-run.js';
import { createScriptRoutes } from './routes/index.js';
import type { RunnerDeps } from './run/deps.js';
import { createWorkerPool } from './runtime/pool.js';
import { createJobs } from './jobs.js';
import { createActionRunStore } from './state/action-runs.js';
import { createSyncStateStore } from './state/sync-state.js';

export interface ScriptsDeps {
  storage: Storage;
  connections: ConnectionService;
  catalog: Catalog;
  events: EventBus;
  logger: Logger;
  environments: readonly Environment[];
  host: ScriptHost;
  baseUrl: string;
  cacheTtlMs: number;
  options?: ScriptsOptions | undefined;
}

/**
 * The scripts feature: registered and deployed syncs and actions, run in script processes, on
 * schedule (one run per slot across processes) or on demand, with stored logs.
 */
export async function createScripts(deps: ScriptsDeps) {
  const { storage, logger } = deps;
  const options = resolveScriptsOptions(deps.options);
  const levels = new Map<string, LogLevel>();
  for (const env of deps.environments) {
    // Checked here too: JavaScript callers can pass anything.
    if (env.scriptLogLevel !== undefined)
      levels.set(env.name, parseStoredLevel(String(env.scriptLogLevel), `environment "${env.name}": scriptLogLevel`));
  }

  const pool = createWorkerPool({
    size: options.workers,
    heapMb: options.heapMb,
    nice: options.nice,
    readable: scriptReadable(options),
  });
  let registry: ScriptRegistry;
  try {
    registry = await createScriptRegistry(
      {
        pool,
        bundles: createBundleStore(storage, options.bundleDir),
        minimumFrequencyMs: options.minimumFrequencyMs,
        cacheTtlMs: storage.shared ? deps.cacheTtlMs : 3_600_000,
      },
      { modules: options.modules, dir: options.dir },
    );
  } catch (error) {
    await pool.close();
    throw error;
  }

  const logs = createLogStore(storage);
  // A store written by an older version: its per-environment run arrays move into the ordered index.
  await logs.upgrade();
  const runner: RunnerDeps = {
    pool,
    registry,
    states: createSyncStateStore(storage),
    logs,
    actionRuns: createActionRunStore(storage),
    host: deps.host,
    connections: deps.connections,
    catalog: deps.catalog,
    coordinator: storage.coordinator,
    limits: {
      syncTimeoutMs: options.syncTimeoutMs,
      syncLockMs: (options.leaseMs ?? queueDefaults.visibilityTimeoutMs) / 2,
      actionTimeoutMs: options.actionTimeoutMs,
      outputLimitBytes: actionOutputLimitBytes,
    },
    levelOf: (env) => levels.get(env),
    logger,
  };
  const jobs = createJobs({
    runner,
    options,
    storage,
    logger,
    events: deps.events,
    environments: deps.environments.map((e) => e.name),
  });
  const syncs = createSyncApi({
    registry,
    states: runner.states,
    queue: jobs.queue,
    connections: deps.connections,
    scheduleId: jobs.scheduleId,
  });
  const actions = createActionApi({
    runner,
    queue: jobs.queue,
    statusUrl: (id) => `${deps.baseUrl}/action/${encodeURIComponent(id)}`,
  });
  try {
    await jobs.start((job, signal) => actions.complete(job, signal));
  } catch (error) {
    await pool.close();
    await jobs.close();
    throw error;
  }

  const api = {
    registry,
    syncs,
    actions,
    logs: runner.logs,
    /** Re-creates the schedules of an environment's syncs (after a deploy). */
    reschedule: jobs.reschedule,
    /** Runs waiting, delayed, running and dead-lettered (for metrics). */
    queueCounts: jobs.counts,
    /** Runs a sync now, in this process, and returns its outcome (tests and embedded callers). */
    runSyncNow: jobs.runSyncNow,
    /** Runs an on-event script for a connection now (the authorization flow's post-connection step). */
    runOnEvent: (
      entry: ScriptEntry,
      target: { environment: string; providerConfigKey: string; connectionId: string },
    ) => runOnEvent(runner, entry, target),
    pool,
  };
  return {
    api,
    routes: createScriptRoutes(api),
    async close() {
      // The queue stops taking jobs, the workers end running scripts at once (an async action cut
      // so is kept for the next start), then the queue settles what was in flight.
      const stopping = jobs.close();
      await pool.close();
      await stopping;
    },
  };
}

/**
 * What script processes may read: the deployed bundles' folder, the scripts directory, each
 * registered module's own file (never its folder, which may be the application's).
 */
function scriptReadable(options: ResolvedScriptsOptions): string[] {
  mkdirSync(options.bundleDir, { recursive: true, mode: 0o700 });
  const folder = (path: string) => (path.endsWith(sep) ? path : path + sep);
  return [
    folder(resolve(options.bundleDir)),
    ...(options.dir ? [folder(resolve(options.dir))] : []),
    ...options.modules.map((m) =>
      m.file instanceof URL || m.file.startsWith('file:') ? fileURLToPath(m.file) : resolve(m.file),
    ),
  ];
}

export type Scripts = Awaited<ReturnType<typeof createScripts>>;
export type ScriptsApi = Scripts['api'];
