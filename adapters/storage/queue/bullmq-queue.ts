import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Job, Worker } from 'bullmq';
import { loadBullmq } from '../libraries.js';
import { createQueueConnections } from './bullmq-connections.js';
import { resolveQueueOptions, type JobHandler, type QueueOptions, type WorkQueue } from '../../../lib/queue/index.js';

export interface BullmqQueueOptions extends QueueOptions {
  /** The Redis the storage uses; BullMQ opens its own connections to it. */
  url: string;
  /** Key prefix of the storage; the queue lives under `<prefix>bull:<name>:*`. */
  prefix: string;
}

/** What BullMQ carries: the caller's id (BullMQ's own id is a hash of it) and the data. */
interface Carried<T> {
  id: string;
  data: T;
}

const giveBackDelayMs = 1_000;

/** Longest an enqueue waits for the queue's Redis connection before failing (the caller answers 503). */
const enqueueWaitMs = 1_000;

/** The worker's pause after a failed fetch while Redis is away. */
const workerRetryDelayMs = 500;

/** Longest `close()` waits for BullMQ's own close before cutting its connections. */
const closeGraceMs = 3_000;

// BullMQ ids may not contain ':' nor be integers; a hash also bounds their length.
const safeId = (text: string) => `j${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;

/** Thrown to make BullMQ retry after exactly `delayMs` (read back in the backoff strategy). */
class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super('job to retry');
    this.name = 'RetryLater';
  }
}

/** The slot a job scheduler's job belongs to: its id ends with the slot's epoch ms. */
const slotOf = (job: Job): number | null => {
  if (!job.repeatJobKey) return null;
  const millis = Number(String(job.id).split(':').pop());
  return Number.isFinite(millis) ? millis : job.timestamp + (job.opts.delay ?? 0);
};

/**
 * The work queue on Redis, built on BullMQ: jobs are in Redis once `enqueue` resolves, each is
 * locked by one worker of all the processes sharing the Redis (the lock is the visibility
 * timeout, renewed while the handler runs), a job whose worker died is handed out again by the
 * stalled-job check once its lock lapses, job schedulers produce one job per slot, and jobs out
 * of attempts stay in BullMQ's failed set (the dead letters).
 */
export function createBullmqQueue<T>(name: string, options: BullmqQueueOptions): WorkQueue<T> {
  const settings = resolveQueueOptions(options);
  const onError = settings.onError ?? (() => {});
  const { DelayedError, Queue, Worker } = loadBullmq();
  // Owned connections: bounded enqueues while Redis is away, a bounded close after an outage.
  const connections = createQueueConnections(options.url);
  const producer = connections.producer();
  const prefix = `${options.prefix}bull`;
  const queue = new Queue<Carried<T>>(name, { connection: producer, prefix });
  queue.on('error', (error) => onError('queue: redis error', { queue: name, error: error.message }));
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  let worker: Worker<Carried<T>> | undefined;
  const jobOptions = {
    attempts: settings.maxAttempts,
    backoff: { type: 'portico' },
    removeOnComplete: settings.keepDoneMs > 0 ? { age: Math.ceil(settings.keepDoneMs / 1000) } : true,
    removeOnFail: { age: Math.ceil(settings.keepDeadMs / 1000) },
  };

  /** Back to the queue without counting an attempt; another process (or the next start) runs it. */
  const giveBack = async (job: Job<Carried<T>>, token?: string): Promise<never> => {
    // A moment's delay: the closing worker must not fetch it again itself.
    await job.moveToDelayed(Date.now() + giveBackDelayMs, token);
    throw new DelayedError();
  };

  const process = (handler: JobHandler<T>) => async (job: Job<Carried<T>>, token?: string) => {
    if (abort.signal.aborted) return giveBack(job, token);
    const outcome = await handler(
      { id: job.data.id, data: job.data.data, attempt: job.attemptsMade + 1, scheduledAt: slotOf(job) },
      abort.signal,
    );
    if (outcome?.kind === 'retry') throw new RetryLater(outcome.delayMs);
    if (outcome?.kind === 'abandoned') return giveBack(job, token);
    return undefined;
  };

  return {
    kind: 'bullmq',
    async enqueue(jobs) {
      await connections.ready(producer, enqueueWaitMs);
      await queue.addBulk(
        jobs.map((job) => ({
          name,
          data: { id: job.id, data: job.data },
          opts: { ...jobOptions, jobId: safeId(job.id), ...(job.delayMs ? { delay: job.delayMs } : {}) },
        })),
      );
    },
    async schedule(id, everyMs, data) {
      await queue.upsertJobScheduler(safeId(id), { every: everyMs }, { name, data: { id, data }, opts: jobOptions });
    },
    async unschedule(id) {
      await queue.removeJobScheduler(safeId(id));
    },
    async nextRun(id) {
      return (await queue.getJobScheduler(safeId(id)))?.next ?? null;
    },
    async start(handler, workerOptions) {
      worker = new Worker<Carried<T>>(name, process(handler), {
        connection: connections.worker(),
        prefix,
        concurrency: Math.max(1, workerOptions.concurrency),
        lockDuration: settings.visibilityTimeoutMs,
        stalledInterval: settings.visibilityTimeoutMs,
        // A crash-looping process must not make jobs fail: a stalled job is handed out again.
        maxStalledCount: 1_000,
        // The pause after a failed fetch (Redis away): BullMQ's 15 s would hold close() that long
        // (the pause is not cut by close) and delay the work after Redis returns.
        runRetryDelay: workerRetryDelayMs,
        // The longest blocking wait for a job, in seconds. A wait in flight when Redis went away is
        // never answered (ioredis keeps it for re-sending), so BullMQ's watchdog, this + 1 s,
        // ends it: close() after an outage waits that long. BullMQ's 5 s made it 6 s.
        drainDelay: 1,
        settings: {
          backoffStrategy: (_attempts: number, _type?: string, error?: Error) =>
            error instanceof RetryLater ? error.delayMs : settings.errorDelayMs,
        },
      });
      worker.on('error', (error) => onError('queue worker: redis error', { queue: name, error: error.message }));
      worker.on('failed', (job, error) => {
        if (!(error instanceof RetryLater) && !(error instanceof DelayedError)) {
          onError('queued job failed', { queue: name, job: job?.data.id, error: error.message });
        }
      });
      await worker.waitUntilReady();
    },
    async counts() {
      const c = await queue.getJobCounts('wait', 'prioritized', 'paused', 'delayed', 'active', 'failed');
      return {
        waiting: (c.wait ?? 0) + (c.prioritized ?? 0) + (c.paused ?? 0),
        delayed: c.delayed ?? 0,
        active: c.active ?? 0,
        dead: c.failed ?? 0,
      };
    },
    async close() {
      // Stop taking jobs first, then cut the attempts in flight: a job given back while the worker
      // still fetches would be picked up again at once.
      await connections.end(async () => {
        const closing = Promise.allSettled([worker?.close(), queue.close()]);
        abort.abort();
        await closing;
      }, closeGraceMs);
      if (worker) stopWorkerTimers(worker);
    },
  };
}

/**
 * BullMQ clears its worker's timers (lock renewal, stalled-job check) only at the very end of its
 * close. When that close is cut short after an outage (a blocking read on a dead connection never
 * settles), the timers stay armed and keep the process alive for up to the stalled-check interval,
 * re-arming as they fire. Both are idempotent to stop; neither exists in BullMQ's typings.
 */
function stopWorkerTimers(worker: Worker): void {
  const internals = worker as unknown as {
    stalledCheckStopper?: () => void;
    lockManager?: { close?: () => Promise<void> };
  };
  internals.stalledCheckStopper?.();
  void internals.lockManager?.close?.().catch(() => undefined);
}
