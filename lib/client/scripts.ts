import { PorticoError } from './errors.js';
import type { Http } from './http.js';
import type { ActionRun, RunInfo, SyncStatus as ServerSyncStatus } from '../scripts/index.js';

export type ScriptLogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface SyncSelection {
  providerConfigKey: string;
  /** Sync names; absent: every sync of the integration. */
  syncs?: readonly string[];
  /** Absent: every connection of the integration. */
  connectionId?: string;
}

/** One sync run, as the gateway reports it (the server's own type; erased at build). */
export type SyncRunInfo = RunInfo;

/** One sync for one connection, as `GET /sync/status` reports it (the server's own type). */
export type SyncStatus = ServerSyncStatus;

export interface SyncRef {
  sync: string;
  connection_id: string;
}

export interface ActionCall<I = unknown> {
  providerConfigKey: string;
  connectionId: string;
  actionName: string;
  input?: I;
  /** Store this run's logs from this level up. */
  logLevel?: ScriptLogLevel;
}

/** An action run as the API shows it: the server's record, with the output parsed and without the environment. */
export type ActionResult<O = unknown> = Omit<ActionRun, 'environment' | 'output_json'> & { output: O | null };

export interface ScriptLog {
  run_id: string;
  type: 'sync' | 'action' | 'on-event';
  script: string;
  provider_config_key: string;
  connection_id: string;
  level: ScriptLogLevel;
  message: string;
  created_at: string;
}

export interface LogsQuery {
  connectionId?: string;
  script?: string;
  runId?: string;
  cursor?: string;
  /** 1 to 1000, default 100. */
  limit?: number;
}

export interface PollOptions {
  /** Pause between polls. Default 500 ms. */
  intervalMs?: number;
  /** Give up after this long (a `PorticoError` with code `timeout`). Default 10 minutes. */
  timeoutMs?: number;
}

/** A script enabled in the environment (`GET /scripts`), registered or deployed. */
export interface ScriptInfo {
  name: string;
  integration: string;
  type: 'sync' | 'action' | 'on-event';
  origin: 'options' | 'directory' | 'deploy';
  description: string | null;
  version: string | null;
  /** Syncs. */
  frequency?: string;
  sync_type?: 'full' | 'incremental';
  auto_start?: boolean;
  detect_deletes?: boolean;
  /** Model name → JSON Schema. */
  models?: Record<string, unknown>;
  /** Actions: JSON Schemas. */
  input?: unknown;
  output?: unknown;
  /** On-event scripts. */
  event?: string;
  deployed_at: string | null;
  /** sha256 of a deployed bundle; null for registered scripts. */
  hash: string | null;
}

const selectionBody = (s: SyncSelection) => ({
  provider_config_key: s.providerConfigKey,
  ...(s.syncs ? { syncs: [...s.syncs] } : {}),
  ...(s.connectionId !== undefined ? { connection_id: s.connectionId } : {}),
});

const actionHeaders = (call: ActionCall) => ({
  'provider-config-key': call.providerConfigKey,
  'connection-id': call.connectionId,
});
const actionBody = (call: ActionCall) => ({
  action_name: call.actionName,
  input: call.input,
  ...(call.logLevel ? { log_level: call.logLevel } : {}),
});

/** Syncs (trigger, pause, start, status), actions (sync, or async with a result poller), logs and deploys. */
export function createScriptsApi(http: Http) {
  const getActionResult = async <O = unknown>(id: string): Promise<ActionResult<O>> =>
    (await http.json<{ data: ActionResult<O> }>('GET', `/action/${encodeURIComponent(id)}`)).body.data;

  /** Polls `GET /action/:id` until the action ends: its output, or a `PorticoError` with the action's error code. */
  const waitForAction = async <O = unknown>(id: string, options: PollOptions = {}): Promise<O> => {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    for (;;) {
      const result = await getActionResult<O>(id);
      if (result.status === 'succeeded') return result.output as O;
      if (result.status === 'failed') {
        const { code, message, ...details } = result.error ?? { code: 'action_failed', message: 'The action failed.' };
        throw new PorticoError({ code, status: 0, message, details: { ...details, action_id: id } });
      }
      if (Date.now() > deadline)
        throw new PorticoError({
          code: 'timeout',
          status: 0,
          message: `Action ${id} had not finished after ${options.timeoutMs ?? 600_000} ms.`,
          details: { action_id: id },
        });
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
    }
  };

  const getScriptLogs = async (query: LogsQuery = {}) =>
    (
      await http.json<{ data: ScriptLog[]; next_cursor: string | null }>('GET', '/logs', {
        query: {
          connection_id: query.connectionId,
          script: query.script,
          run_id: query.runId,
          cursor: query.cursor,
          limit: query.limit,
        },
      })
    ).body;

  return {
    /** Queues runs; `full` refetches everything and detects deletions. */
    async triggerSync(selection: SyncSelection & { mode?: 'incremental' | 'full'; logLevel?: ScriptLogLevel }) {
      return (
        await http.json<{ data: { mode: string; queued: SyncRef[]; already_running: SyncRef[] } }>(
          'POST',
          '/sync/trigger',
          {
            body: {
              ...selectionBody(selection),
              ...(selection.mode ? { mode: selection.mode } : {}),
              ...(selection.logLevel ? { log_level: selection.logLevel } : {}),
            },
          },
        )
      ).body.data;
    },
    async pauseSync(selection: SyncSelection) {
      return (
        await http.json<{ data: { paused: SyncRef[] } }>('POST', '/sync/pause', { body: selectionBody(selection) })
      ).body.data.paused;
    },
    async startSync(selection: SyncSelection) {
      return (
        await http.json<{ data: { started: SyncRef[] } }>('POST', '/sync/start', { body: selectionBody(selection) })
      ).body.data.started;
    },
    async syncStatus(selection: SyncSelection) {
      return (
        await http.json<{ data: SyncStatus[] }>('GET', '/sync/status', {
          query: {
            provider_config_key: selection.providerConfigKey,
            syncs: selection.syncs?.join(','),
            connection_id: selection.connectionId,
          },
        })
      ).body.data;
    },
    /** Runs the action and answers its output (a `PorticoError` with the action's code when it fails). */
    async triggerAction<I = unknown, O = unknown>(call: ActionCall<I>): Promise<O> {
      return (await http.json<O>('POST', '/action/trigger', { headers: actionHeaders(call), body: actionBody(call) }))
        .body;
    },
    /** Queues the action (`X-Async: true`); `result()` polls until it ends. */
    async triggerActionAsync<I = unknown, O = unknown>(call: ActionCall<I>) {
      const { body } = await http.json<{ id: string; status_url: string }>('POST', '/action/trigger', {
        headers: { ...actionHeaders(call), 'x-async': 'true' },
        body: actionBody(call),
      });
      return {
        id: body.id,
        statusUrl: body.status_url,
        result: (options?: PollOptions) => waitForAction<O>(body.id, options),
      };
    },
    getActionResult,
    waitForAction,
    /** One page of stored script logs, newest first. */
    getScriptLogs,
    /** Every page of logs matching `query`, fetched lazily. */
    async *scriptLogPages(query: LogsQuery = {}): AsyncGenerator<ScriptLog[], void, undefined> {
      let cursor = query.cursor;
      for (;;) {
        const page = await getScriptLogs({ ...query, ...(cursor === undefined ? {} : { cursor }) });
        yield page.data;
        if (page.next_cursor === null) return;
        cursor = page.next_cursor;
      }
    },
    async listScripts(integration?: string): Promise<ScriptInfo[]> {
      return (await http.json<{ data: ScriptInfo[] }>('GET', '/scripts', { query: { integration } })).body.data;
    },
    /** Replaces the environment's deployed scripts with these compiled bundles (what the CLI does). */
    async deployScripts(
      scripts: readonly { integration: string; name: string; bundle: string }[],
    ): Promise<ScriptInfo[]> {
      return (await http.json<{ data: { deployed: ScriptInfo[] } }>('POST', '/scripts/deploy', { body: { scripts } }))
        .body.data.deployed;
    },
  };
}
