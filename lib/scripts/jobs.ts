import type { EventBus, GatewayEvent } from '../events/index.js';
import type { Logger } from '../http/logger.js';
import type { Storage } from '../storage/index.js';
import { parseFrequency } from './define/frequency.js';
import type { ResolvedScriptsOptions } from './options.js';
import type { ScriptEntry } from './registry/registry.js';
import type { RunnerDeps } from './run/deps.js';
import { runOnEvent } from './run/event-run.js';
import { runSync, type SyncRunRequest } from './run/sync-run.js';
import { createBullmqEngine } from './schedule/bullmq-engine.js';
import type { ActionJob, JobEngine, ScriptJob, TickJob } from './schedule/jobs.js';
import { createMemoryEngine } from './schedule/memory-engine.js';

export interface JobsDeps {
  runner: RunnerDeps;
  options: ResolvedScriptsOptions;
  storage: Storage;
  logger: Logger;
  events: EventBus;
  environments: readonly string[];
}

const isSync = (e: ScriptEntry) => e.manifest.type === 'sync';

/**
 * The engine and what it runs: schedule ticks fan out to one sync job per connection, queued
 * runs execute, and connection events start initial syncs and post-connection scripts.
 */
export function createJobs(deps: JobsDeps) {
  const { runner, storage, logger } = deps;
  const engine: JobEngine = deps.options.engine ?? (storage.redis
    ? createBullmqEngine({ url: storage.redis.url, prefix: storage.redis.prefix, logger, concurrency: deps.options.workers + 2 })
    : createMemoryEngine(logger));
  const scheduleId = (env: string, pck: string, sync: string) => `${env}|${pck}|${sync}`;
  let unsubscribe = () => {};

  const tick = async (job: TickJob, slot: number | null) => {
    const entry = await runner.registry.get(job.environment, job.providerConfigKey, job.sync);
    // Unknown here may only mean this process has not seen a deploy yet: skip, do not unschedule.
    if (!entry || !isSync(entry)) return;
    const id = scheduleId(job.environment, job.providerConfigKey, job.sync);
    for await (const connectionId of runner.connections.idsOf(job.environment, job.providerConfigKey)) {
      await engine.enqueue({
        type: 'sync', environment: job.environment, providerConfigKey: job.providerConfigKey, connectionId,
        sync: job.sync, mode: 'incremental', trigger: 'schedule', ...(slot !== null ? { scheduledAt: slot } : {}),
      }, slot !== null ? `${id}|${connectionId}|${slot}` : undefined);
    }
  };

  const handle = (complete: (job: ActionJob) => Promise<void>) => async (job: ScriptJob, meta: { scheduledAt: number | null }) => {
    if (job.type === 'tick') return tick(job, meta.scheduledAt);
    if (job.type === 'action') return complete(job);
    if (job.type === 'sync') {
      const outcome = await runSync(runner, job);
      if (outcome.status === 'skipped' && outcome.reason !== 'paused') logger.debug('sync run skipped', { sync: job.sync, reason: outcome.reason });
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
      await engine.schedule(scheduleId(env, e.integration, e.name), every.ms, { type: 'tick', environment: env, providerConfigKey: e.integration, sync: e.name });
    }
    for (const old of previous.filter(isSync)) {
      if (!current.some((e) => e.integration === old.integration && e.name === old.name)) await engine.unschedule(scheduleId(env, old.integration, old.name));
    }
  };

  const onConnectionEvent = async (event: GatewayEvent) => {
    if (event.type !== 'connection.created' && event.type !== 'connection.deleted') return;
    const env = event.environment;
    const pck = event.provider_config_key;
    const cid = event.connection_id;
    const entries = await runner.registry.list(env, pck);
    if (event.type === 'connection.deleted') {
      for (const e of entries.filter(isSync)) await runner.states.delete({ environment: env, providerConfigKey: pck, connectionId: cid, sync: e.name });
      return;
    }
    for (const e of entries.filter((s) => isSync(s) && s.manifest.autoStart !== false)) {
      await engine.enqueue({ type: 'sync', environment: env, providerConfigKey: pck, connectionId: cid, sync: e.name, mode: 'incremental', trigger: 'connection' });
    }
    // Post-connection scripts of the integration. The one the catalog names (post_connection_script)
    // is the authorization flow's to run, before its success page (see hooks.ts).
    const named = runner.catalog.get(event.provider)?.post_connection_script;
    const scripts = entries.filter((e) => e.manifest.type === 'on-event' && e.manifest.event === 'post-connection-creation' && e.name !== named);
    for (const e of scripts) {
      await engine.enqueue({ type: 'on-event', environment: env, providerConfigKey: pck, connectionId: cid, script: e.name });
    }
  };

  return {
    engine,
    scheduleId,
    reschedule,
    runSyncNow: (request: SyncRunRequest) => runSync(runner, request),
    async start(complete: (job: ActionJob) => Promise<void>) {
      await engine.start(handle(complete));
      for (const env of deps.environments) await reschedule(env);
      unsubscribe = deps.events.subscribe((event) => onConnectionEvent(event));
    },
    async close() {
      unsubscribe();
      await engine.close();
    },
  };
}
