import { randomUUID } from 'node:crypto';
import { fail } from '../../errors.js';
import type { LogLevel } from '../../http/logger.js';
import type { RunnerDeps } from '../run/deps.js';
import { runAction, type ActionRunOutcome } from '../run/action-run.js';
import type { JobOutcome } from '../../queue/index.js';
import type { ActionJob, ScriptQueue } from '../schedule/jobs.js';
import type { ActionRun } from '../state/action-runs.js';

export interface ActionCall {
  providerConfigKey: string;
  connectionId: string;
  action: string;
  input: unknown;
  logLevel?: LogLevel | undefined;
}

export interface ActionApiDeps {
  runner: RunnerDeps;
  queue: ScriptQueue;
  /** `GET /action/:id` under the gateway's public address. */
  statusUrl(id: string): string;
}

/** Actions behind `POST /action/trigger` and `GET /action/:id`, usable in process too. */
export function createActionApi(deps: ActionApiDeps) {
  const { runner } = deps;
  const check = async (env: string, call: ActionCall) => {
    const entry = await runner.registry.get(env, call.providerConfigKey, call.action);
    if (entry?.manifest.type !== 'action') {
      fail('unknown_script', `No action "${call.action}" is enabled for integration "${call.providerConfigKey}".`, {
        field: 'action_name',
      });
    }
    await runner.connections.require(env, call.providerConfigKey, call.connectionId);
  };

  return {
    /** Runs the action now and returns its outcome (the output's JSON, or an error with its code). */
    async run(env: string, call: ActionCall): Promise<ActionRunOutcome> {
      await check(env, call);
      return runAction(runner, { environment: env, ...call });
    },
    /** Queues the action; the result is kept for `get` and announced by an `action` webhook. */
    async enqueue(env: string, call: ActionCall): Promise<{ id: string; status_url: string }> {
      await check(env, call);
      const id = randomUUID();
      const record: ActionRun = {
        id,
        environment: env,
        action_name: call.action,
        provider_config_key: call.providerConfigKey,
        connection_id: call.connectionId,
        status: 'pending',
        created_at: new Date().toISOString(),
        finished_at: null,
        output_json: null,
        error: null,
      };
      await runner.actionRuns.put(record);
      await deps.queue.enqueue(
        {
          type: 'action',
          environment: env,
          id,
          providerConfigKey: call.providerConfigKey,
          connectionId: call.connectionId,
          action: call.action,
          input: call.input,
          ...(call.logLevel ? { logLevel: call.logLevel } : {}),
        },
        `action|${env}|${id}`,
      );
      return { id, status_url: deps.statusUrl(id) };
    },
    get: (env: string, id: string) => runner.actionRuns.get(env, id),
    /** The queue's side of an async action: runs once to completion, also after a crash mid-run. */
    async complete(job: ActionJob, signal?: AbortSignal): Promise<JobOutcome | void> {
      const record = await runner.actionRuns.get(job.environment, job.id);
      if (!record || record.status === 'succeeded' || record.status === 'failed') return;
      await runner.actionRuns.put({ ...record, status: 'running' });
      const outcome = await runAction(runner, {
        environment: job.environment,
        providerConfigKey: job.providerConfigKey,
        connectionId: job.connectionId,
        action: job.action,
        input: job.input,
        logLevel: job.logLevel,
        runId: job.id,
      });
      // Cut by shutdown: it stays `running` and its job runs again after the restart.
      if (!outcome.ok && outcome.error.code === 'script_interrupted' && signal?.aborted) return { kind: 'abandoned' };
      const finished: ActionRun = {
        ...record,
        status: outcome.ok ? 'succeeded' : 'failed',
        finished_at: new Date().toISOString(),
        output_json: outcome.ok ? outcome.output.json : null,
        error: outcome.ok ? null : outcome.error,
      };
      await runner.actionRuns.put(finished);
      const connection = await runner.connections.get(job.environment, job.providerConfigKey, job.connectionId);
      await runner.host.emit(job.environment, {
        type: 'action',
        connection_id: job.connectionId,
        provider_config_key: job.providerConfigKey,
        ...(connection ? { provider: connection.provider } : {}),
        action_name: job.action,
        action_id: job.id,
        success: outcome.ok,
        ...(outcome.ok
          ? { output: JSON.parse(outcome.output.json) as unknown }
          : { error: { code: outcome.error.code, message: outcome.error.message } }),
      });
    },
  };
}

export type ActionApi = ReturnType<typeof createActionApi>;
