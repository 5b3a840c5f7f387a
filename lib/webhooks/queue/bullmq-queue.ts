import { setMaxListeners } from 'node:events';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Logger } from '../../http/logger.js';
import type { DeliveryJob, DeliveryQueue, JobHandler } from './queue.js';

export interface BullmqQueueOptions {
  /** The Redis the storage uses; BullMQ opens its own connections to it. */
  url: string;
  /** Key prefix; the queue lives under `<prefix>bull:webhooks:*`. */
  prefix: string;
  logger: Logger;
  concurrency: number;
  /** All attempts, first included: a ceiling only, the handler decides when to stop. */
  attempts: number;
  /** Pause after a handler that threw, before BullMQ tries again. */
  errorDelayMs: number;
}

const giveBackDelayMs = 1_000;

/** Thrown to make BullMQ retry after exactly `delayMs` (read back in the backoff strategy). */
class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super('webhook delivery to retry');
    this.name = 'RetryLater';
  }
}

/**
 * The outbox on Redis, built on BullMQ: jobs are in Redis once `enqueue` resolves, each is locked
 * by one worker of all the gateway processes sharing the Redis, and a job whose worker died is
 * handed to another once its lock expires (BullMQ's stalled-job check).
 */
export function createBullmqQueue(options: BullmqQueueOptions): DeliveryQueue {
  const connection = { url: options.url, maxRetriesPerRequest: null };
  const prefix = `${options.prefix}bull`;
  const queue = new Queue<DeliveryJob>('webhooks', { connection, prefix });
  queue.on('error', (error) => options.logger.warn('webhook queue: redis error', { error: error.message }));
  const abort = new AbortController();
  // Every attempt in flight listens for shutdown on this one signal.
  setMaxListeners(0, abort.signal);
  let worker: Worker<DeliveryJob> | undefined;
  let handler: JobHandler | undefined;

  /** Back to the queue without counting an attempt; another process (or the next start) runs it. */
  const giveBack = async (job: Job<DeliveryJob>, token?: string): Promise<never> => {
    // A moment's delay: the closing worker must not fetch it again itself.
    await job.moveToDelayed(Date.now() + giveBackDelayMs, token);
    throw new DelayedError();
  };

  const process = async (job: Job<DeliveryJob>, token?: string) => {
    if (abort.signal.aborted) return giveBack(job, token);
    const outcome = await (handler as JobHandler)(job.data, job.attemptsMade + 1, abort.signal);
    if (outcome.kind === 'retry') throw new RetryLater(outcome.delayMs);
    if (outcome.kind === 'abandoned') return giveBack(job, token);
    return undefined;
  };

  return {
    kind: 'bullmq',
    async enqueue(jobs) {
      await queue.addBulk(jobs.map((data) => ({
        name: data.type,
        data,
        opts: {
          jobId: data.id,
          attempts: options.attempts,
          backoff: { type: 'portico' },
          // The delivery record keeps the history; BullMQ need not.
          removeOnComplete: true,
          removeOnFail: true,
        },
      })));
    },
    async start(jobHandler) {
      handler = jobHandler;
      worker = new Worker<DeliveryJob>('webhooks', process, {
        connection,
        prefix,
        concurrency: options.concurrency,
        // A live worker renews its lock every 15 s; a dead one's jobs go back to the queue once
        // the lock lapses, and the stalled-job check of any worker (or the next start) picks them up.
        lockDuration: 30_000,
        // A crash-looping process must not make jobs fail: they are retried, not dropped.
        maxStalledCount: 10,
        settings: {
          backoffStrategy: (_attempts: number, _type?: string, error?: Error) =>
            error instanceof RetryLater ? error.delayMs : options.errorDelayMs,
        },
      });
      worker.on('error', (error) => options.logger.warn('webhook worker: redis error', { error: error.message }));
      worker.on('failed', (job, error) => {
        if (!(error instanceof RetryLater) && !(error instanceof DelayedError)) {
          options.logger.error('webhook delivery handler failed', { job: job?.id, error: error.message });
        }
      });
    },
    async close() {
      // Stop taking jobs first, then cut the attempts in flight: a job given back while the worker
      // still fetches would be picked up again at once.
      const closing = worker?.close();
      abort.abort();
      await closing;
      await queue.close();
    },
  };
}
