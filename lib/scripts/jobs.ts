import { randomUUID } from 'node:crypto';
import type { EventBus, GatewayEvent } from '../events/index.js';
import type { Logger } from '../http/logger.js';
import type { JobOutcome, WorkQueue } from '../queue/index.js';
import type { Storage } from '../storage/index.js';
import { parseFrequency } from './define/frequency.js';
import type { ResolvedScriptsOptions } from './options.js';
import type { ScriptEntry } from './registry/registry.js';
import type { RunnerDeps } from './run/deps.js';
import { runOnEvent } from './run/event-run.js';
import { runSync, type SyncRunRequest } from './run/sync-run.js';
import type { ActionJob, ScriptJob, ScriptQueue, TickJob } from './schedule/jobs.js';

export interface JobsDeps {
  runner: RunnerDeps;
  options: ResolvedScriptsOptions;
  storage: Storage;
  logger: Logger;
  events: EventBus;
  environments: readonly string[];
}

const isSync = (e: ScriptEntry) => e.manifest.type === 'sync';

/** Finished ids are remembered this long, so a slot's or an action's job enqueued twice runs once. */
const keepDoneMs = 3_600_000;
/** A run whose handler threw (the store unreachable, say) is tried this many times in all. */
const maxAttempts = 5;

/** Runs an async action job; `abandoned` when shutdown cut it (it runs again after the restart). */
export type CompleteAction = (job: ActionJob, signal: AbortSignal) => Promise<JobOutcome | void>;

/**
 * When runs happen, on the storage's work queue: schedule ticks fan out to one sync job per
 * connection, queued runs execute, and connection events start initial syncs and
 * post-connection scripts. Every job is durable: accepted work survives a restart.
 */
export function createJobs(deps: JobsDeps) {
  const { runner, storage, logger } = deps;
  const work: WorkQueue<ScriptJob> =
    deps.options.queue ??
    storage.queue<ScriptJob>('scripts', {
      keepDoneMs,
      maxAttempts,
      onError: (message, details) => logger.warn(`scripts: ${message}`, details),
      ...(deps.options.leaseMs !== undefined ? { visibilityTimeoutMs: deps.options.leaseMs } : {}),
    });
  const queue: ScriptQueue = {
    enqueue: (job, dedupeId) => work.enqueue([{ id: dedupeId ?? `${job.type}|${randomUUID()}`, data: job }]),
    nextRun: (id) => work.nextRun(id),
  };
  const scheduleId = (env: string, pck: string, sync: string) => `${env}|${pck}|${sync}`;
  let unsubscribe = () => {};

  const tick = async (job: TickJob, slot: number | null) => {
    const entry = await runner.registry.get(job.environment, job.providerConfigKey, job.sync);
    // Unknown here may only mean this process has not seen a deploy yet: skip, do not unschedule.
    if (!entry || !isSync(entry)) return;
    const id = scheduleId(job.environment, job.providerConfigKey, job.sync);
    for await (const connectionId of runner.connections.idsOf(job.environment, job.providerConfigKey)) {
      await queue.enqueue(
        {
          type: 'sync',
          environment: job.environment,
          providerConfigKey: job.providerConfigKey,
          connectionId,
          sync: job.sync,
          mode: 'incremental',
          trigger: 'schedule',
          ...(slot !== null ? { scheduledAt: slot } : {}),
        },
        slot !== null ? `${id}|${connectionId}|${slot}` : undefined,
      );
    }
  };

  const handle =
    (complete: CompleteAction) =>
    async ({ data: job, scheduledAt }: { data: ScriptJob; scheduledAt: number | null }, signal: AbortSignal) => {
      if (job.type === 'tick') return tick(job, scheduledAt);
      if (job.type === 'action') return complete(job, signal);
      if (job.type === 'sync') {
        const outcome = await runSync(runner, job);
        if (outcome.status === 'skipped' && outcome.reason !== 'paused')
          logger.debug('sync run skipped', { sync: job.sync, reason: outcome.reason });
        return;
      }
      const entry = await runner.registry.get(job.environment, job.providerConfigKey, job.script);
      if (entry?.manifest.type === 'on-event') await runOnEvent(runner, entry, job);
    };

  /** Schedules every sync of the environment; syncs only in `previous` lose their schedule. */
  const reschedule = async (env: string, previous: readonly ScriptEntry[] = []) => {
    const current = (await runner.registry.list(env)).filter(isSync);
    for (const e of current) {
      const every = parseFrequency(e.manifest.frequency ?? '', deps.options.minimumFrequencyMs);
      if (!every.ok) continue;
      await work.schedule(scheduleId(env, e.integration, e.name), every.ms, {
        type: 'tick',
        environment: env,
        providerConfigKey: e.integration,
        sync: e.name,
      });
    }
    for (const old of previous.filter(isSync)) {
      if (!current.some((e) => e.integration === old.integration && e.name === old.name))
        await work.unschedule(scheduleId(env, old.integration, old.name));
    }
  };

  const onConnectionEvent = async (event: GatewayEvent) => {
    if (event.type !== 'connection.created' && event.type !== 'connection.deleted') return;
    const env = event.environment;
    const pck = event.provider_config_key;
    const cid = event.connection_id;
    const entries = await runner.registry.list(env, pck);
    if (event.type === 'connection.deleted') {
      for (const e of entries.filter(isSync))
        await runner.states.delete({ environment: env, providerConfigKey: pck, connectionId: cid, sync: e.name });
      return;
    }
    for (const e of entries.filter((s) => isSync(s) && s.manifest.autoStart !== false)) {
      await queue.enqueue({
        type: 'sync',
        environment: env,
        providerConfigKey: pck,
        connectionId: cid,
        sync: e.name,
        mode: 'incremental',
        trigger: 'connection',
      });
    }
    // Post-connection scripts of the integration. The one the catalog names (post_connection_script)
    // is the authorization flow's to run, before its success page (see hooks.ts).
    const named = runner.catalog.get(event.provider)?.post_connection_script;
    const scripts = entries.filter(
      (e) => e.manifest.type === 'on-event' && e.manifest.event === 'post-connection-creation' && e.name !== named,
    );
    for (const e of scripts) {
      await queue.enqueue({
        type: 'on-event',
        environment: env,
        providerConfigKey: pck,
        connectionId: cid,
        script: e.name,
      });
    }
  };

  return {
    queue,
    /** Jobs per state, for metrics. */
    counts: () => work.counts(),
    scheduleId,
    reschedule,
    runSyncNow: (request: SyncRunRequest) => runSync(runner, request),
    async start(complete: CompleteAction) {
      // Room beyond the worker threads: ticks and runs waiting on a lock hold no thread.
      await work.start(handle(complete), { concurrency: deps.options.workers + 2 });
      for (const env of deps.environments) await reschedule(env);
      unsubscribe = deps.events.subscribe((event) => onConnectionEvent(event));
    },
    async close() {
      unsubscribe();
      await work.close();
    },
  };
}
