import { createHash } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from '../../http/logger.js';
import type { JobEngine, JobHandler, ScriptJob } from './jobs.js';

export interface BullmqEngineOptions {
  url: string;
  /** Key prefix of the storage; the queue lives under `<prefix>bull:scripts:*`. */
  prefix: string;
  logger: Logger;
  /** Jobs this process works on at once. */
  concurrency: number;
}

// BullMQ ids may not contain ':'; a hash also bounds their length.
const safeId = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 40);

/**
 * Schedules and queued runs on Redis through BullMQ. Every gateway process upserts the same job
 * schedulers (idempotent) and runs a worker; BullMQ produces one job per schedule slot and
 * hands each job to exactly one worker, so a scheduled run happens once however many
 * processes share the Redis.
 */
export function createBullmqEngine(options: BullmqEngineOptions): JobEngine {
  const connection = { url: options.url, maxRetriesPerRequest: null };
  const prefix = `${options.prefix}bull`;
  const queue = new Queue<ScriptJob>('scripts', { connection, prefix });
  queue.on('error', (error) => options.logger.warn('script queue: redis error', { error: error.message }));
  let worker: Worker<ScriptJob> | undefined;

  const slotOf = (job: Job<ScriptJob>): number | null => {
    if (!job.repeatJobKey) return null;
    const millis = Number(String(job.id).split(':').pop());
    return Number.isFinite(millis) ? millis : job.timestamp + (job.opts.delay ?? 0);
  };

  return {
    kind: 'bullmq',
    async start(handler: JobHandler) {
      worker = new Worker<ScriptJob>('scripts', async (job) => handler(job.data, { scheduledAt: slotOf(job) }), {
        connection,
        prefix,
        concurrency: options.concurrency,
      });
      worker.on('error', (error) => options.logger.warn('script worker: redis error', { error: error.message }));
      worker.on('failed', (job, error) => options.logger.error('script job failed', { job: job?.name, error: error.message }));
      await worker.waitUntilReady();
    },
    async schedule(id, everyMs, job) {
      await queue.upsertJobScheduler(safeId(id), { every: everyMs }, {
        name: job.type,
        data: job,
        opts: { removeOnComplete: true, removeOnFail: 100 },
      });
    },
    async unschedule(id) {
      await queue.removeJobScheduler(safeId(id));
    },
    async nextRun(id) {
      const scheduler = await queue.getJobScheduler(safeId(id));
      return scheduler?.next ?? null;
    },
    async enqueue(job, dedupeId) {
      await queue.add(job.type, job, {
        ...(dedupeId !== undefined ? { jobId: safeId(dedupeId) } : {}),
        // Completed sync ids are kept an hour so a duplicate enqueue (same slot) is ignored; an
        // action's job (its input) goes at once: its result lives in the action's record.
        removeOnComplete: job.type === 'action' ? true : { age: 3_600, count: 10_000 },
        removeOnFail: job.type === 'action' ? true : { age: 86_400, count: 1_000 },
      });
    },
    async close() {
      await worker?.close();
      await queue.close();
    },
  };
}
