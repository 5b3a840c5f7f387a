import { randomUUID } from 'node:crypto';
import { runThreshold } from '../logs/levels.js';
import { createRunLog } from '../logs/run-log.js';
import type { ScriptEntry } from '../registry/registry.js';
import { createCallHandler } from './calls.js';
import { failureOf, runContext, type RunnerDeps } from './deps.js';

/** Runs an on-event script (e.g. a catalog's `post_connection_script`) for one connection. */
export async function runOnEvent(
  deps: RunnerDeps,
  entry: ScriptEntry,
  target: { environment: string; providerConfigKey: string; connectionId: string },
): Promise<{ ok: boolean; runId: string }> {
  const { environment: env, providerConfigKey: pck, connectionId: cid } = target;
  const runId = randomUUID();
  const connection = await deps.connections.get(env, pck, cid);
  if (!connection) return { ok: false, runId };
  const log = createRunLog(
    deps.logs,
    env,
    {
      run_id: runId,
      type: 'on-event',
      script: entry.name,
      provider_config_key: pck,
      connection_id: cid,
      started_at: new Date().toISOString(),
    },
    { threshold: runThreshold(undefined, deps.levelOf(env)) },
  );
  const ended = new AbortController();
  const onCall = createCallHandler(deps, target, undefined, ended.signal);
  const outcome = await deps.pool.run(
    entry.file,
    { type: 'on-event', context: runContext(deps, connection, runId) },
    { onCall, onLog: log.write },
    deps.limits.actionTimeoutMs,
  );
  ended.abort(new Error('the run has ended'));
  if (!outcome.ok) {
    const failure = failureOf(outcome);
    log.write('error', `${entry.manifest.event ?? 'event'} script failed (${failure.code}): ${failure.message}`);
  }
  await log
    .flush()
    .catch((e: unknown) => deps.logger.error('script logs could not be stored', { run_id: runId, error: String(e) }));
  return { ok: outcome.ok, runId };
}
