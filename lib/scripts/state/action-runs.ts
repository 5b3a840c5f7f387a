import type { Storage } from '../../storage/index.js';

export interface ActionRunError {
  code: string;
  message: string;
  field?: string;
  payload?: unknown;
}

/** An asynchronous action call, as `GET /action/:id` reports it. */
export interface ActionRun {
  id: string;
  environment: string;
  action_name: string;
  provider_config_key: string;
  connection_id: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed';
  created_at: string;
  finished_at: string | null;
  /** The output's JSON text, kept as the worker produced it (at most 2 MB). */
  output_json: string | null;
  error: ActionRunError | null;
}

/** Results stay readable this long after the call. */
export const actionRunTtlMs = 7 * 24 * 3_600_000;

export interface ActionRunStore {
  get(environment: string, id: string): Promise<ActionRun | undefined>;
  put(run: ActionRun): Promise<void>;
}

export function createActionRunStore(storage: Storage): ActionRunStore {
  const runs = storage.keyv<ActionRun>('script-action-runs');
  const key = (env: string, id: string) => `${env}\u001f${id}`;
  return {
    async get(env, id) {
      return (await runs.get(key(env, id))) ?? undefined;
    },
    async put(run) {
      await runs.set(key(run.environment, run.id), run, actionRunTtlMs);
    },
  };
}
