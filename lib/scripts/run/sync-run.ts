import { randomUUID } from 'node:crypto';
import { keepRenewed } from '../../coordination/index.js';
import type { LogLevel } from '../../http/logger.js';
import { runThreshold } from '../logs/levels.js';
import { createRunLog, type RunLog } from '../logs/run-log.js';
import type { StreamRef } from '../../records/index.js';
import type { ModelCounts, RunInfo, SyncTarget } from '../state/sync-state.js';
import { scriptRan } from '../diagnostics.js';
import { createCallHandler } from './calls.js';
import { failureOf, runContext, type RunnerDeps } from './deps.js';

export interface SyncRunRequest extends SyncTarget {
  mode: 'full' | 'incremental';
  trigger: RunInfo['trigger'];
  logLevel?: LogLevel | undefined;
  /** The schedule slot (epoch ms) of a scheduled run. */
  scheduledAt?: number | undefined;
}

export type SyncRunOutcome =
  | { status: 'success' | 'failed'; run: RunInfo }
  | { status: 'skipped'; reason: 'unknown_sync' | 'unknown_connection' | 'paused' | 'already_running' };

const lockKey = (t: SyncTarget) =>
  `script-run:${[t.environment, t.providerConfigKey, t.connectionId, t.sync].map((p) => `${p.length}:${p}`).join('|')}`;

/**
 * One sync run for one connection: at most one at a time per connection and sync (a lock
 * across processes), the script in a worker, deletion detection for full runs, then the run's
 * state, logs and webhooks.
 */
export async function runSync(deps: RunnerDeps, request: SyncRunRequest): Promise<SyncRunOutcome> {
  const { environment: env, providerConfigKey: pck, connectionId: cid, sync } = request;
  const entry = await deps.registry.get(env, pck, sync);
  if (entry?.manifest.type !== 'sync') return { status: 'skipped', reason: 'unknown_sync' };
  // Held for the wait in the worker queue and the run by renewing it: a crashed process frees it
  // within syncLockMs, not after the longest run allowed.
  const lease = await deps.coordinator.tryLock(lockKey(request), deps.limits.syncLockMs);
  if (!lease) return { status: 'skipped', reason: 'already_running' };
  const stopRenewing = keepRenewed(lease, deps.limits.syncLockMs, (reason) =>
    deps.logger.warn('a sync run lost its lock; another run of it may start', { sync, reason }),
  );
  try {
    const connection = await deps.connections.get(env, pck, cid);
    if (!connection) return { status: 'skipped', reason: 'unknown_connection' };
    const state = await deps.states.get(request);
    const manifest = entry.manifest;
    if ((state.paused ?? manifest.autoStart === false) && request.trigger === 'schedule')
      return { status: 'skipped', reason: 'paused' };

    const mode = manifest.syncType === 'incremental' ? request.mode : 'full';
    const models = Object.keys(manifest.models ?? {});
    const runId = randomUUID();
    const started = new Date();
    const scheduledAt = request.scheduledAt === undefined ? null : new Date(request.scheduledAt).toISOString();
    const run: RunInfo = {
      run_id: runId,
      status: 'running',
      mode,
      trigger: request.trigger,
      scheduled_at: scheduledAt,
      started_at: started.toISOString(),
      finished_at: null,
      results: {},
      error: null,
    };
    await deps.states.update(request, (s) => ({ ...s, latest_run: run }));
    const log = createRunLog(
      deps.logs,
      env,
      {
        run_id: runId,
        type: 'sync',
        script: sync,
        provider_config_key: pck,
        connection_id: cid,
        started_at: run.started_at,
      },
      { threshold: runThreshold(request.logLevel, deps.levelOf(env)) },
    );
    log.write(
      'info',
      `sync run started: trigger ${request.trigger}, mode ${mode}${scheduledAt ? `, slot ${scheduledAt}` : ''}`,
    );

    const counts: ModelCounts = Object.fromEntries(models.map((m) => [m, { added: 0, updated: 0, deleted: 0 }]));
    const ended = new AbortController();
    const onCall = createCallHandler(
      deps,
      { environment: env, providerConfigKey: pck, connectionId: cid },
      { target: request, states: deps.states, models, mode, counts },
      ended.signal,
    );
    const outcome = await deps.pool.run(
      entry.file,
      {
        type: 'sync',
        context: runContext(deps, connection, runId),
        mode,
        lastSyncDate: state.last_success_started_at,
      },
      { onCall, onLog: log.write },
      deps.limits.syncTimeoutMs,
    );
    ended.abort(new Error('the run has ended'));

    const target = (model: string): StreamRef => ({
      environment: env,
      providerConfigKey: pck,
      connectionId: cid,
      model,
    });
    let error: RunInfo['error'] = outcome.ok ? null : failureOf(outcome);
    if (!error && mode === 'full' && manifest.detectDeletes !== false) {
      try {
        for (const model of models)
          (counts[model] as ModelCounts[string]).deleted += (
            await deps.host.records.deleteNotSeenSince(target(model), started)
          ).deleted;
      } catch (cause) {
        error = { code: 'deletion_detection_failed', message: cause instanceof Error ? cause.message : String(cause) };
      }
    }
    const finished: RunInfo = {
      ...run,
      status: error ? 'failed' : 'success',
      finished_at: new Date().toISOString(),
      results: counts,
      error,
    };
    scriptRan({
      environment: env,
      providerConfigKey: pck,
      script: sync,
      kind: 'sync',
      outcome: error ? 'failed' : 'success',
      code: error?.code ?? null,
      durationMs: Date.now() - started.getTime(),
    });
    if (error) log.write('error', `sync run failed (${error.code}): ${error.message}`);
    else log.write('info', `sync run finished: ${JSON.stringify(counts)}`);

    const announced = await announceRecords(deps, request, counts, started, log, target);
    await deps.states.update(request, (s) => ({
      ...s,
      latest_run: finished,
      ...(error ? {} : { last_success_started_at: run.started_at }),
      announced_cursors: { ...s.announced_cursors, ...announced },
    }));
    await Promise.all(
      models.map((model) =>
        emitSafely(deps, env, log, {
          type: 'sync',
          connection_id: cid,
          provider_config_key: pck,
          provider: connection.provider,
          sync_name: sync,
          model,
          success: !error,
          results: error ? { added: 0, updated: 0, deleted: 0 } : (counts[model] as ModelCounts[string]),
          started_at: run.started_at,
          finished_at: finished.finished_at as string,
          ...(error ? { error: { code: error.code, message: error.message } } : {}),
        }),
      ),
    );
    await log
      .flush()
      .catch((e: unknown) => deps.logger.error('script logs could not be stored', { run_id: runId, error: String(e) }));
    return { status: error ? 'failed' : 'success', run: finished };
  } finally {
    stopRenewing();
    await lease.release();
  }
}

/** Tells the customer which models have new records, from the position announced last time. */
async function announceRecords(
  deps: RunnerDeps,
  request: SyncRunRequest,
  counts: ModelCounts,
  started: Date,
  log: RunLog,
  target: (model: string) => StreamRef,
): Promise<Record<string, string | null>> {
  const state = await deps.states.get(request);
  const announced: Record<string, string | null> = {};
  for (const [model, c] of Object.entries(counts)) {
    const changed = c.added + c.updated + c.deleted;
    if (changed === 0) continue;
    try {
      const latest = await deps.host.records.latestCursorSince(target(model), new Date(started.getTime() - 1));
      await emitSafely(deps, request.environment, log, {
        type: 'records',
        connection_id: request.connectionId,
        provider_config_key: request.providerConfigKey,
        model,
        count: changed,
        cursor: state.announced_cursors[model] ?? null,
        latest_cursor: latest,
        modified_after: started.toISOString(),
      });
      announced[model] = latest;
    } catch (error) {
      log.write(
        'warn',
        `new ${model} records could not be announced: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return announced;
}

async function emitSafely(
  deps: RunnerDeps,
  env: string,
  log: RunLog,
  event: Parameters<RunnerDeps['host']['emit']>[1],
): Promise<void> {
  try {
    await deps.host.emit(env, event);
  } catch (error) {
    log.write(
      'warn',
      `the ${event.type} webhook could not be queued: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
