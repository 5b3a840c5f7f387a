import { setMaxListeners } from 'node:events';
import {
  resolveQueueOptions,
  type JobHandler,
  type JobOutcome,
  type QueueOptions,
  type WorkQueue,
} from '../../../lib/queue/index.js';
import type { Db } from './pool.js';
import { scheduleStatements } from './queue-schedules.js';
import { queueStatements, type JobRow } from './queue-sql.js';

export interface PostgresQueueOptions extends QueueOptions {
  /** How often an idle worker looks for due jobs (other instances' enqueues, retries, lapsed claims). Default 250 ms. */
  pollMs?: number;
}

/** A queue that has no schedule looks for new ones (another instance may add them) this often. */
const scheduleCheckMs = 5_000;
const sweepEveryMs = 60_000;
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The work queue on PostgreSQL: a job is a row once `enqueue` resolves; idle workers poll for
 * due rows and claim them with `FOR UPDATE SKIP LOCKED` and a visibility timeout, renewed while
 * the handler runs (one statement for all of this worker's jobs). A worker that dies leaves its
 * claim to lapse, and the job is claimed again with the same attempt number. Settling (done,
 * retry, dead letter, release) is one statement conditional on the claim token.
 */
export function createPostgresQueue<T>(db: Db, name: string, options: PostgresQueueOptions = {}): WorkQueue<T> {
  const settings = resolveQueueOptions(options);
  const onError = settings.onError ?? (() => {});
  const pollMs = options.pollMs ?? 250;
  const jobs = queueStatements(db, name);
  const schedules = scheduleStatements(db, name);
  const abort = new AbortController();
  // Every attempt in flight listens for shutdown on this one signal.
  setMaxListeners(0, abort.signal);
  const inFlight = new Map<string, { cut: AbortController; done: Promise<void> }>();
  let handler: JobHandler<T> | undefined;
  let concurrency = 1;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;
  let hasSchedules = true;
  let lastScheduleCheck = 0;
  let lastSweep = Date.now();

  const attempt = async (row: JobRow, signal: AbortSignal): Promise<JobOutcome | { kind: 'failed'; error: string }> => {
    try {
      const job = {
        id: row.id,
        data: JSON.parse(row.data) as T,
        attempt: row.attempts + 1,
        scheduledAt: row.slot === null ? null : Number(row.slot),
      };
      return (await (handler as JobHandler<T>)(job, signal)) ?? { kind: 'done' };
    } catch (error) {
      if (closed) return { kind: 'abandoned' };
      onError('queued job failed', { queue: name, job: row.id, error: describe(error) });
      return { kind: 'failed', error: describe(error) };
    }
  };

  const run = async (row: JobRow, cut: AbortController) => {
    const stop = () => cut.abort();
    abort.signal.addEventListener('abort', stop, { once: true });
    const outcome = await attempt(row, cut.signal);
    abort.signal.removeEventListener('abort', stop);
    const token = row.claim_token;
    try {
      if (outcome.kind === 'done') await jobs.done(row.id, token, settings.keepDoneMs);
      else if (outcome.kind === 'abandoned') await jobs.release(row.id, token);
      else if (outcome.kind === 'retry')
        await jobs.retry(row.id, token, outcome.delayMs, settings.maxAttempts, settings.keepDeadMs, null);
      else
        await jobs.retry(
          row.id,
          token,
          settings.errorDelayMs,
          settings.maxAttempts,
          settings.keepDeadMs,
          outcome.error,
        );
    } catch (error) {
      // The row keeps its claim, which lapses: the job comes back (handlers are idempotent).
      onError('queue store operation failed', { queue: name, job: row.id, error: describe(error) });
    }
  };

  const claimSome = async (): Promise<boolean> => {
    const room = concurrency - inFlight.size;
    if (!handler || closed || room <= 0) return false;
    const rows = await jobs.claim(room, settings.visibilityTimeoutMs);
    for (const row of rows) {
      // Closed while the claim was on its way: give the jobs straight back.
      if (closed) {
        await jobs.release(row.id, row.claim_token);
        continue;
      }
      const cut = new AbortController();
      const done = run(row, cut).finally(() => {
        inFlight.delete(row.claim_token);
        nudge();
      });
      inFlight.set(row.claim_token, { cut, done });
    }
    return rows.length === room;
  };

  const tick = async () => {
    const now = Date.now();
    if (hasSchedules || now - lastScheduleCheck >= scheduleCheckMs) {
      lastScheduleCheck = now;
      hasSchedules = (await schedules.fire()).total > 0;
    }
    if (now - lastSweep >= sweepEveryMs) {
      lastSweep = now;
      await jobs.sweep();
    }
    // A full batch means there may be more: claim again at once.
    while (await claimSome());
  };

  /** Runs a tick now (or right after the one running), then polls. */
  function nudge() {
    if (closed || !handler) return;
    if (ticking) {
      again = true;
      return;
    }
    clearTimeout(timer);
    ticking = tick()
      .catch((error: unknown) => onError('queue poll failed', { queue: name, error: describe(error) }))
      .finally(() => {
        ticking = undefined;
        if (closed) return;
        if (again) {
          again = false;
          nudge();
          return;
        }
        timer = setTimeout(nudge, pollMs);
        timer.unref();
      });
  }

  const renewAll = async () => {
    const tokens = [...inFlight.keys()];
    if (tokens.length === 0) return;
    const held = await jobs.renew(tokens, settings.visibilityTimeoutMs);
    // Lapsed and taken by another worker: stop; that worker's run counts.
    for (const token of tokens) if (!held.has(token)) inFlight.get(token)?.cut.abort();
  };

  return {
    kind: 'postgres',
    async enqueue(newJobs) {
      const unique = new Map<string, { id: string; data: string; delayMs: number }>();
      for (const job of newJobs) {
        if (!unique.has(job.id))
          unique.set(job.id, {
            id: job.id,
            data: JSON.stringify(job.data) ?? 'null',
            delayMs: Math.max(0, job.delayMs ?? 0),
          });
      }
      if (unique.size === 0) return;
      // In id order: concurrent enqueues of the same ids lock rows in the same order (no deadlock).
      await jobs.add([...unique.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
      nudge();
    },
    async schedule(id, everyMs, data) {
      await schedules.upsert(id, Math.max(1, Math.round(everyMs)), JSON.stringify(data) ?? 'null');
      hasSchedules = true;
    },
    unschedule: (id) => schedules.remove(id),
    nextRun: (id) => schedules.next(id),
    async start(jobHandler, workerOptions) {
      handler = jobHandler;
      concurrency = Math.max(1, workerOptions.concurrency);
      heartbeat = setInterval(
        () => {
          renewAll().catch((error: unknown) =>
            onError('queue claim renewal failed', { queue: name, error: describe(error) }),
          );
        },
        Math.max(50, Math.floor(settings.visibilityTimeoutMs / 3)),
      );
      heartbeat.unref();
      nudge();
      await ticking;
    },
    counts: () => jobs.counts(),
    async close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(heartbeat);
      abort.abort();
      await ticking;
      await Promise.allSettled([...inFlight.values()].map((f) => f.done));
    },
  };
}
