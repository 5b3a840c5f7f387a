import type { PorticoClient } from '../../client/index.js';
import type { LogLevel } from '../../http/logger.js';
import {
  actionOutputLimitBytes,
  executeScriptTask,
  serializeError,
  type ActionOutput,
  type AnyScript,
  type ScriptManifest,
  type ScriptTask,
} from '../../scripts/local.js';
import { createDryRunCalls, type DryRunState } from './calls.js';
import type { DryRunTarget } from './context.js';
import type { FixtureRecorder } from './fixtures.js';
import { createRecordTracker, type ModelChanges } from './records.js';

export interface DryRunLog {
  level: LogLevel;
  message: string;
  at: string;
}

export interface DryRunError {
  code: string;
  message: string;
  field?: string;
  payload?: unknown;
  stack?: string;
}

export interface DryRunResult {
  ok: boolean;
  type: ScriptManifest['type'];
  mode: 'full' | 'incremental' | null;
  durationMs: number;
  logs: DryRunLog[];
  /** Syncs: per model, what would change. */
  records: Record<string, ModelChanges> | null;
  /** Actions: the output, as the API would answer it. */
  output: unknown;
  outputBytes: number | null;
  error: DryRunError | null;
  /** The last checkpoint the run saved (not stored); null when it saved none. */
  checkpoint: Record<string, unknown> | null;
  metadataWrites: DryRunState['metadataWrites'];
  proxyCalls: number;
  responses: string[];
}

export interface DryRunOptions {
  script: AnyScript;
  manifest: ScriptManifest;
  target: DryRunTarget;
  client: PorticoClient;
  /** Incremental syncs only: the checkpoint getCheckpoint answers (`--checkpoint`). */
  checkpoint: Record<string, unknown> | null;
  input: unknown;
  fixtures: FixtureRecorder | undefined;
  /** Each log line as the script writes it: every level (spec 8, local dry-run). */
  onLog(log: DryRunLog): void;
}

/** Runs a script in this process against the gateway, storing nothing; the outcome is a value. */
export async function runDryRun(options: DryRunOptions): Promise<DryRunResult> {
  const { manifest, target, client } = options;
  const where = { providerConfigKey: target.context.providerConfigKey, connectionId: target.context.connectionId };
  const records = createRecordTracker(client, where);
  const mode = manifest.type !== 'sync' ? undefined : manifest.syncType === 'incremental' ? 'incremental' : 'full';
  const state: DryRunState = {
    metadata: { ...target.connection.metadata },
    metadataWrites: [],
    checkpoint: options.checkpoint,
    checkpointSaved: false,
    mode,
    proxyCalls: 0,
  };
  const models = manifest.type === 'sync' ? Object.keys(manifest.models ?? {}) : undefined;
  const call = createDryRunCalls({
    client,
    environment: target.context.environment,
    ...where,
    records,
    fixtures: options.fixtures,
    state,
    models,
  });
  const logs: DryRunLog[] = [];
  const log = (level: LogLevel, message: string) => {
    const entry = { level, message, at: new Date().toISOString() };
    logs.push(entry);
    options.onLog(entry);
  };
  const task: ScriptTask =
    manifest.type === 'sync'
      ? { type: 'sync', context: target.context, mode: mode ?? 'full', lastSyncDate: null }
      : manifest.type === 'action'
        ? { type: 'action', context: target.context, input: options.input, outputLimitBytes: actionOutputLimitBytes }
        : { type: 'on-event', context: target.context };

  const started = performance.now();
  const startedAt = new Date();
  let error: DryRunError | null = null;
  let value: unknown;
  try {
    value = await executeScriptTask(options.script, task, call, log);
    // A full run marks deleted what it did not save (unless the sync opts out): counted, not done.
    if (mode === 'full' && manifest.detectDeletes !== false) {
      for (const model of models ?? [])
        await records.deleteNotSeenSince({ environment: target.context.environment, ...where, model }, startedAt);
    }
  } catch (thrown) {
    const s = serializeError(thrown);
    error = {
      code: s.code ?? 'script_error',
      message: s.message,
      ...(s.field !== undefined ? { field: s.field } : {}),
      ...(s.payload !== undefined ? { payload: s.payload } : {}),
      ...(s.stack ? { stack: s.stack } : {}),
    };
  }
  const output = manifest.type === 'action' && !error ? (value as ActionOutput) : undefined;
  return {
    ok: error === null,
    type: manifest.type,
    mode: mode ?? null,
    durationMs: Math.round(performance.now() - started),
    logs,
    records: manifest.type === 'sync' ? records.changes(Object.keys(manifest.models ?? {})) : null,
    output: output ? (JSON.parse(output.json) as unknown) : null,
    outputBytes: output ? output.bytes : null,
    error,
    checkpoint: state.checkpointSaved ? state.checkpoint : null,
    metadataWrites: state.metadataWrites,
    proxyCalls: state.proxyCalls,
    responses: options.fixtures?.files() ?? [],
  };
}
