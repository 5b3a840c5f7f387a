import type { LogLevel } from '../../http/logger.js';
import type { Storage } from '../../storage/index.js';

export interface LogEntry {
  level: LogLevel;
  message: string;
  created_at: string;
}

/** Which run a log belongs to; kept in the environment's run index, newest last. */
export interface RunSummary {
  run_id: string;
  type: 'sync' | 'action' | 'on-event';
  script: string;
  provider_config_key: string;
  connection_id: string;
  started_at: string;
}

/** One log line as `GET /logs` returns it. */
export type PublicLog = Omit<RunSummary, 'started_at'> & LogEntry;

export interface LogFilter {
  connectionId?: string | undefined;
  script?: string | undefined;
  runId?: string | undefined;
}

export type LogPage = { ok: true; data: PublicLog[]; next_cursor: string | null } | { ok: false; reason: 'invalid_cursor' };

export interface LogStore {
  /** Stores the run's entries so far (the whole list: a run appends only through its own buffer). */
  write(environment: string, run: RunSummary, entries: readonly LogEntry[]): Promise<void>;
  /** Newest first, across runs, filtered; `cursor` continues where the previous page stopped. */
  query(environment: string, filter: LogFilter, page: { cursor?: string | undefined; limit: number }): Promise<LogPage>;
}

export interface LogStoreOptions {
  /** Runs whose logs an environment keeps; the oldest run's logs go first. Default 2,000. */
  maxRuns?: number;
}

const sep = '\u001f';
const encodeCursor = (runId: string, before: number) => Buffer.from(JSON.stringify({ r: runId, i: before })).toString('base64url');
function decodeCursor(cursor: string): { runId: string; before: number } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { r?: unknown; i?: unknown };
    if (typeof value.r === 'string' && Number.isSafeInteger(value.i) && (value.i as number) >= 0) return { runId: value.r, before: value.i as number };
  } catch {
    // not ours
  }
  return undefined;
}

/**
 * Script logs on any Keyv back end: one list per run, and per environment an index of the runs
 * that stored anything (runs whose lines were all below the threshold cost nothing).
 */
export function createLogStore(storage: Storage, options: LogStoreOptions = {}): LogStore {
  const logs = storage.keyv<LogEntry[]>('script-logs');
  const index = storage.keyv<RunSummary[]>('script-log-index');
  const maxRuns = options.maxRuns ?? 2_000;
  const indexed = new Set<string>();

  const addToIndex = (env: string, run: RunSummary) => storage.coordinator.withLock(`script-log-index:${env}`, async () => {
    const runs = (await index.get(env)) ?? [];
    if (runs.some((r) => r.run_id === run.run_id)) return;
    runs.push(run);
    const dropped = runs.splice(0, Math.max(0, runs.length - maxRuns));
    await index.set(env, runs);
    for (const old of dropped) await logs.delete(`${env}${sep}${old.run_id}`);
  });

  return {
    async write(env, run, entries) {
      if (entries.length === 0) return;
      await logs.set(`${env}${sep}${run.run_id}`, [...entries]);
      const key = `${env}${sep}${run.run_id}`;
      if (!indexed.has(key)) {
        await addToIndex(env, run);
        indexed.add(key);
        if (indexed.size > 10_000) indexed.clear();
      }
    },
    async query(env, filter, page) {
      const runs = ((await index.get(env)) ?? [])
        .filter((r) => (!filter.connectionId || r.connection_id === filter.connectionId)
          && (!filter.script || r.script === filter.script)
          && (!filter.runId || r.run_id === filter.runId))
        .sort((a, b) => (a.started_at === b.started_at ? (a.run_id < b.run_id ? 1 : -1) : a.started_at < b.started_at ? 1 : -1));
      let start = 0;
      let before = Infinity;
      if (page.cursor !== undefined) {
        const position = decodeCursor(page.cursor);
        start = position ? runs.findIndex((r) => r.run_id === position.runId) : -1;
        if (!position || start < 0) return { ok: false, reason: 'invalid_cursor' };
        before = position.before;
      }
      const data: PublicLog[] = [];
      for (let i = start; i < runs.length; i++) {
        const run = runs[i] as RunSummary;
        const entries = (await logs.get(`${env}${sep}${run.run_id}`)) ?? [];
        const { started_at: _started, ...about } = run;
        for (let k = Math.min(entries.length, i === start ? before : Infinity) - 1; k >= 0; k--) {
          if (data.length === page.limit) return { ok: true, data, next_cursor: encodeCursor(run.run_id, k + 1) };
          data.push({ ...about, ...(entries[k] as LogEntry) });
        }
      }
      return { ok: true, data, next_cursor: null };
    },
  };
}
