import { randomUUID } from 'node:crypto';
import type { LogLevel } from '../../http/logger.js';
import { runThreshold } from '../logs/levels.js';
import { createRunLog } from '../logs/run-log.js';
import type { TaskOutcome } from '../runtime/pool.js';
import type { ActionOutput } from '../runtime/protocol.js';
import type { ActionRunError } from '../state/action-runs.js';
import { scriptRan } from '../diagnostics.js';
import { createCallHandler } from './calls.js';
import { failureOf, runContext, type RunnerDeps } from './deps.js';

export interface ActionRunRequest {
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  action: string;
  input: unknown;
  logLevel?: LogLevel | undefined;
  /** The async call's id; a new one otherwise. */
  runId?: string;
}

export type ActionRunOutcome =
  { ok: true; runId: string; output: ActionOutput } | { ok: false; runId: string; error: ActionRunError };

/** Worker error codes → the codes the API answers with. */
const apiCode: Record<string, string> = {
  invalid_input: 'invalid_action_input',
  invalid_output: 'invalid_action_output',
  output_too_large: 'action_output_too_large',
  action_error: 'action_failed',
};

/**
 * One action run: the script in a worker with the action time limit; the worker checks the
 * input and output schemas and the 2 MB output limit before anything is sent back.
 */
export async function runAction(deps: RunnerDeps, request: ActionRunRequest): Promise<ActionRunOutcome> {
  const { environment: env, providerConfigKey: pck, connectionId: cid } = request;
  const runId = request.runId ?? randomUUID();
  const entry = await deps.registry.get(env, pck, request.action);
  if (entry?.manifest.type !== 'action') {
    return {
      ok: false,
      runId,
      error: { code: 'unknown_script', message: `No action "${request.action}" is enabled for integration "${pck}".` },
    };
  }
  const connection = await deps.connections.get(env, pck, cid);
  if (!connection)
    return {
      ok: false,
      runId,
      error: { code: 'unknown_connection', message: `No connection "${cid}" under integration "${pck}".` },
    };
  const log = createRunLog(
    deps.logs,
    env,
    {
      run_id: runId,
      type: 'action',
      script: request.action,
      provider_config_key: pck,
      connection_id: cid,
      started_at: new Date().toISOString(),
    },
    { threshold: runThreshold(request.logLevel, deps.levelOf(env)) },
  );
  const started = performance.now();
  const ended = new AbortController();
  const onCall = createCallHandler(
    deps,
    { environment: env, providerConfigKey: pck, connectionId: cid },
    undefined,
    ended.signal,
  );
  const outcome = await deps.pool.run(
    entry.file,
    {
      type: 'action',
      context: runContext(deps, connection, runId),
      input: request.input,
      outputLimitBytes: deps.limits.outputLimitBytes,
    },
    { onCall, onLog: log.write },
    deps.limits.actionTimeoutMs,
  );
  ended.abort(new Error('the run has ended'));
  let result: ActionRunOutcome;
  const output = outcome.ok ? checkedOutput(outcome.value, deps.limits.outputLimitBytes) : undefined;
  if (output && 'json' in output) {
    result = { ok: true, runId, output };
  } else {
    const error: ActionRunError = output ?? actionError(outcome as Extract<TaskOutcome, { ok: false }>);
    // Bad input is the caller's mistake, not the script's: worth a warning, not an error.
    log.write(
      error.code === 'invalid_action_input' ? 'warn' : 'error',
      `action failed (${error.code}): ${error.message}`,
    );
    result = { ok: false, runId, error };
  }
  scriptRan({
    environment: env,
    providerConfigKey: pck,
    script: request.action,
    kind: 'action',
    outcome: result.ok ? 'success' : 'failed',
    code: result.ok ? null : result.error.code,
    durationMs: performance.now() - started,
  });
  await log
    .flush()
    .catch((e: unknown) => deps.logger.error('script logs could not be stored', { run_id: runId, error: String(e) }));
  return result;
}

function actionError(outcome: Extract<TaskOutcome, { ok: false }>): ActionRunError {
  const failure = failureOf(outcome);
  return {
    ...failure,
    code: apiCode[failure.code] ?? (outcome.reason === 'script_error' ? 'action_failed' : failure.code),
  };
}

/**
 * The output as the script's process reported it. The process runs untrusted code and could
 * skip its own checks, so the 2 MB limit and the JSON are checked again here.
 */
function checkedOutput(value: unknown, limit: number): ActionOutput | ActionRunError {
  const json = (value as Partial<ActionOutput> | null)?.json;
  const bytes = typeof json === 'string' ? Buffer.byteLength(json) : 0;
  if (typeof json !== 'string') return { code: 'invalid_action_output', message: 'the action returned no output' };
  if (bytes > limit)
    return {
      code: 'action_output_too_large',
      message: `the action's output is ${bytes} bytes; the limit is ${limit} bytes (use the proxy for larger payloads)`,
    };
  try {
    JSON.parse(json);
  } catch {
    return { code: 'invalid_action_output', message: "the action's output is not JSON" };
  }
  return { json, bytes };
}
