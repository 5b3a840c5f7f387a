import type { LogLevel } from '../../http/logger.js';
import type { Storage } from '../../storage/index.js';

export interface LogEntry {
  level: LogLevel;
  message: string;
  created_at: string;
}

/** Which run a log belongs to; listed in the environment's ordered run index. */
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

export type LogPage =
  { ok: true; data: PublicLog[]; next_cursor: string | null } | { ok: false; reason: 'invalid_cursor' };

export interface LogStore {
  /** Stores the run's entries so far (the whole list: a run appends only through its own buffer). */
  write(environment: string, run: RunSummary, entries: readonly LogEntry[]): Promise<void>;
  /** Newest first, across runs, filtered; `cursor` continues where the previous page stopped. */
  query(environment: string, filter: LogFilter, page: { cursor?: string | undefined; limit: number }): Promise<LogPage>;
  /** Moves the run index an older version kept (one array per environment) into the ordered index. */
  upgrade(): Promise<number>;
}

export interface LogStoreOptions {
  /** Runs whose logs an environment keeps; the oldest run's logs go first. Default 2,000. */
  maxRuns?: number;
}

const sep = '\u001f';
const encodeCursor = (runId: string, before: number) =>
  Buffer.from(JSON.stringify({ r: runId, i: before })).toString('base64url');
function decodeCursor(cursor: string): { runId: string; before: number } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { r?: unknown; i?: unknown };
    if (typeof value.r === 'string' && Number.isSafeInteger(value.i) && (value.i as number) >= 0)
      return { runId: value.r, before: value.i as number };
  } catch {
    // not ours
  }
  return undefined;
}

/**
 * Script logs on any Keyv back end: one list per run, one summary per run, and ordered indexes
 * of the runs that stored anything (all of an environment's, and per connection and per script),
 * by start time. A page reads the runs it shows; the oldest runs beyond `maxRuns` are dropped.
 */
export function createLogStore(storage: Storage, options: LogStoreOptions = {}): LogStore {
  const logs = storage.keyv<LogEntry[]>('script-logs');
  const runs = storage.keyv<RunSummary>('script-log-runs');
  const index = storage.index('script-logs');
  const maxRuns = options.maxRuns ?? 2_000;
  const indexed = new Set<string>();
  const listOf = (env: string, list: string) => `${env}${sep}${list}`;
  const listsOf = (run: RunSummary) => ['all', `connection:${run.connection_id}`, `script:${run.script}`];
  const positionOf = (run: RunSummary) => ({ order: Date.parse(run.started_at) * 1000, id: run.run_id });

  const addRuns = async (env: string, added: readonly RunSummary[]) => {
    await runs.setMany(added.map((run) => ({ key: `${env}${sep}${run.run_id}`, value: run })));
    await index.addMany(
      added.flatMap((run) => listsOf(run).map((list) => ({ list: listOf(env, list), ...positionOf(run) }))),
    );
  };
  /** Drops the oldest runs beyond `maxRuns`: their logs, summaries and index entries. */
  const trim = async (env: string) => {
    const excess = (await index.count(listOf(env, 'all'))) - maxRuns;
    if (excess <= 0) return;
    for (const old of await index.page(listOf(env, 'all'), excess)) {
      const run = await runs.get(`${env}${sep}${old.id}`);
      for (const list of run ? listsOf(run) : ['all']) await index.remove(listOf(env, list), old.id);
      await logs.delete(`${env}${sep}${old.id}`);
      await runs.delete(`${env}${sep}${old.id}`);
    }
  };

  return {
    async write(env, run, entries) {
      if (entries.length === 0) return;
      const key = `${env}${sep}${run.run_id}`;
      await logs.set(key, [...entries]);
      if (!indexed.has(key)) {
        await addRuns(env, [run]);
        await trim(env);
        indexed.add(key);
        if (indexed.size > 10_000) indexed.clear();
      }
    },
    async query(env, filter, page) {
      const matches = (r: RunSummary) =>
        (!filter.connectionId || r.connection_id === filter.connectionId) &&
        (!filter.script || r.script === filter.script) &&
        (!filter.runId || r.run_id === filter.runId);
      const list = listOf(
        env,
        filter.connectionId ? `connection:${filter.connectionId}` : filter.script ? `script:${filter.script}` : 'all',
      );
      let before = Infinity;
      let first: RunSummary | undefined;
      if (page.cursor !== undefined) {
        const position = decodeCursor(page.cursor);
        first = position ? await runs.get(`${env}${sep}${position.runId}`) : undefined;
        if (!position || !first || !matches(first)) return { ok: false, reason: 'invalid_cursor' };
        before = position.before;
      } else if (filter.runId) {
        first = await runs.get(`${env}${sep}${filter.runId}`);
        if (!first || !matches(first)) return { ok: true, data: [], next_cursor: null };
      }
      const data: PublicLog[] = [];
      /** Adds the run's lines below `below`, newest first; false once the page is full (the cursor then says where). */
      const take = async (run: RunSummary, below: number): Promise<string | undefined> => {
        const entries = (await logs.get(`${env}${sep}${run.run_id}`)) ?? [];
        const { started_at: _started, ...about } = run;
        for (let k = Math.min(entries.length, below) - 1; k >= 0; k--) {
          if (data.length === page.limit) return encodeCursor(run.run_id, k + 1);
          data.push({ ...about, ...(entries[k] as LogEntry) });
        }
        return undefined;
      };
      if (first) {
        const next = await take(first, before);
        if (next !== undefined || filter.runId) return { ok: true, data, next_cursor: next ?? null };
      }
      let after = first ? positionOf(first) : undefined;
      for (;;) {
        const positions = await index.page(list, 50, after, true);
        const found = await runs.get(positions.map((p) => `${env}${sep}${p.id}`));
        for (const run of found) {
          if (!run || !matches(run)) continue;
          const next = await take(run, Infinity);
          if (next !== undefined) return { ok: true, data, next_cursor: next };
        }
        after = positions.at(-1);
        if (positions.length < 50) return { ok: true, data, next_cursor: null };
      }
    },
    async upgrade() {
      // Once done, a start skips it: looking for old arrays scans the whole keyspace on Redis.
      const layout = storage.keyv<number>('storage-layout');
      if ((await layout.get('script-logs')) === 2) return 0;
      const legacy = storage.keyv<RunSummary[]>('script-log-index');
      let moved = 0;
      for await (const [env, list] of legacy.iterator?.(undefined) ?? []) {
        if (typeof env !== 'string' || !Array.isArray(list)) continue;
        await addRuns(env, list as RunSummary[]);
        await legacy.delete(env);
        moved += list.length;
      }
      await layout.set('script-logs', 2);
      return moved;
    },
  };
}
