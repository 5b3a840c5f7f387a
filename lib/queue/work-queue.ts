/** A job as enqueued: `id` deduplicates (a second job with a known id is dropped). */
export interface NewJob<T> {
  id: string;
  data: T;
  /** Run no earlier than this long from now. Default 0. */
  delayMs?: number;
}

/** A job handed to a handler: claimed by this worker until its outcome is settled. */
export interface ClaimedJob<T> {
  id: string;
  data: T;
  /** 1-based; an attempt cut short by a crash or shutdown is not counted, so it comes again with the same number. */
  attempt: number;
  /** The schedule slot (epoch ms) of a job a repeatable schedule produced; null otherwise. */
  scheduledAt: number | null;
}

/** What the handler wants done with a job after one attempt. `undefined` means done. */
export type JobOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delayMs: number }
  /** Cut short by shutdown: keep the job, do not count the attempt. */
  | { kind: 'abandoned' };

/** One attempt; `signal` aborts when the queue closes. A throw counts as a failed attempt. */
export type JobHandler<T> = (job: ClaimedJob<T>, signal: AbortSignal) => Promise<JobOutcome | void>;

export interface WorkerOptions {
  /** Jobs this worker runs at once. */
  concurrency: number;
}

/** Jobs per state, for metrics. `active`: claimed by a worker now; `dead`: gave up, kept for inspection. */
export interface QueueCounts {
  waiting: number;
  delayed: number;
  active: number;
  dead: number;
}

/** Settings of one named queue; defaults in `queueDefaults`. */
export interface QueueOptions {
  /**
   * A claimed job stays hidden from other workers this long; a live worker renews the claim
   * (every third of it), a dead one's job is handed out again once it lapses.
   */
  visibilityTimeoutMs?: number;
  /** Failed attempts (throws and retries) after which a job moves to the dead letters. */
  maxAttempts?: number;
  /** Pause after a handler that threw, before the next attempt. */
  errorDelayMs?: number;
  /** How long a finished job's id still deduplicates. 0: forgotten at once. */
  keepDoneMs?: number;
  /** How long dead letters are kept. */
  keepDeadMs?: number;
  /** Told about failures no caller sees (a store error in the background, a handler that threw). */
  onError?: (message: string, details: Record<string, unknown>) => void;
}

type Settings = Required<Omit<QueueOptions, 'onError'>>;

export const queueDefaults: Readonly<Settings> = Object.freeze({
  visibilityTimeoutMs: 30_000,
  maxAttempts: 20,
  errorDelayMs: 5_000,
  keepDoneMs: 0,
  keepDeadMs: 7 * 24 * 3_600_000,
});

/**
 * Work that runs later, durably: a job is stored where a restart (or another process sharing
 * the store) finds it once `enqueue` resolves, and is handed to one worker at a time. A job is
 * done once its handler settles it; a worker that dies mid-job loses its claim after the
 * visibility timeout and the job runs again, so every job runs to completion exactly once
 * (its side effects before a crash may happen twice: handlers stay idempotent).
 * Each storage adapter supplies its own (`Storage.queue`); features never look at which.
 */
export interface WorkQueue<T> {
  /** `outbox` (Keyv store), `bullmq` (Redis), …: for logs and diagnostics only. */
  readonly kind: string;
  enqueue(jobs: readonly NewJob<T>[]): Promise<void>;
  /**
   * Creates or updates the repeatable schedule `id` (idempotent: every instance may call it).
   * Each slot (slots are `everyMs` apart) produces one job across all instances; slots missed
   * while no instance ran produce one job, not one per slot.
   */
  schedule(id: string, everyMs: number, data: T): Promise<void>;
  unschedule(id: string): Promise<void>;
  /** When the schedule next fires (epoch ms); null when there is no such schedule. */
  nextRun(id: string): Promise<number | null>;
  /** Starts working, beginning with whatever was left pending; also fires schedules. */
  start(handler: JobHandler<T>, options: WorkerOptions): Promise<void>;
  counts(): Promise<QueueCounts>;
  /** Stops taking jobs and aborts attempts in flight; their jobs stay pending for the next start. */
  close(): Promise<void>;
}

/** `Storage.queue`: a new handle on the named queue (each handle started is one more worker). */
export type QueueFactory = <T>(name: string, options?: QueueOptions) => WorkQueue<T>;

export function resolveQueueOptions(options: QueueOptions = {}): Settings & Pick<QueueOptions, 'onError'> {
  const { onError } = options;
  // Only the queue's own settings: implementations pass their wider option objects through.
  const resolved: Settings = { ...queueDefaults };
  for (const name of Object.keys(queueDefaults) as (keyof Settings)[]) {
    const value = options[name];
    if (value !== undefined) resolved[name] = value;
  }
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) throw new Error(`queue option ${name} must be a number ≥ 0`);
  }
  if (resolved.maxAttempts < 1 || resolved.visibilityTimeoutMs < 100)
    throw new Error('queue options: maxAttempts ≥ 1, visibilityTimeoutMs ≥ 100');
  return onError ? { ...resolved, onError } : resolved;
}
