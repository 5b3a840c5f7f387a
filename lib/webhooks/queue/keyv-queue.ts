import { setMaxListeners } from 'node:events';
import type { Logger } from '../../http/logger.js';
import type { Storage } from '../../storage/index.js';
import type { DeliveryJob, DeliveryQueue, JobHandler, JobOutcome } from './queue.js';

/** What the outbox keeps per job: the job, the attempts made so far, and when the next is due. */
interface Entry {
  job: DeliveryJob;
  attempts: number;
  due: number;
}

export interface KeyvQueueOptions {
  storage: Storage;
  logger: Logger;
  /** Attempts in flight at once. */
  concurrency: number;
  /** Pause after a handler that threw (a storage error, say) before the job is tried again. */
  errorDelayMs: number;
  namespace?: string;
}

/**
 * The embedded outbox for one process (memory or SQLite storage): every job is written to the
 * Keyv store before `enqueue` resolves and removed when it is done; an in-process worker runs
 * them. On start it reads back whatever a crashed or stopped process left, so nothing accepted
 * is lost. Not for storage several processes share: two workers would both send.
 */
export function createKeyvQueue(options: KeyvQueueOptions): DeliveryQueue {
  const store = options.storage.keyv<Entry>(options.namespace ?? 'webhook-outbox');
  const known = new Set<string>();
  const ready: Entry[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  // Every attempt in flight listens for shutdown on this one signal.
  setMaxListeners(0, abort.signal);
  let handler: JobHandler | undefined;
  let closed = false;

  const schedule = (entry: Entry) => {
    if (closed) return;
    const wait = entry.due - Date.now();
    if (wait <= 0) {
      ready.push(entry);
      pump();
      return;
    }
    // Unref'd: a pending retry must not keep the host process alive; it is on disk anyway.
    const timer = setTimeout(() => {
      timers.delete(timer);
      ready.push(entry);
      pump();
    }, wait);
    timer.unref();
    timers.add(timer);
  };

  const settle = async (entry: Entry, outcome: JobOutcome) => {
    const { id } = entry.job;
    if (outcome.kind === 'done') {
      await store.delete(id);
      known.delete(id);
    } else if (outcome.kind === 'retry') {
      const next = { job: entry.job, attempts: entry.attempts + 1, due: Date.now() + outcome.delayMs };
      await store.set(id, next);
      schedule(next);
    }
    // abandoned: the stored entry is unchanged, so the next start runs the same attempt again.
  };

  const run = async (entry: Entry) => {
    let outcome: JobOutcome;
    try {
      outcome = await (handler as JobHandler)(entry.job, entry.attempts + 1, abort.signal);
    } catch (error) {
      options.logger.error('webhook delivery handler failed', { job: entry.job.id, error: error instanceof Error ? error.message : String(error) });
      outcome = closed ? { kind: 'abandoned' } : { kind: 'retry', delayMs: options.errorDelayMs };
    }
    try {
      await settle(entry, outcome);
    } catch (error) {
      // The store refused the write; the entry stays as it was on disk and runs again on restart.
      options.logger.error('webhook outbox write failed', { job: entry.job.id, error: error instanceof Error ? error.message : String(error) });
    }
  };

  function pump() {
    while (!closed && handler && inFlight.size < options.concurrency && ready.length > 0) {
      const entry = ready.shift() as Entry;
      const running: Promise<void> = run(entry).finally(() => {
        inFlight.delete(running);
        pump();
      });
      inFlight.add(running);
    }
  }

  return {
    kind: 'outbox',
    async enqueue(jobs) {
      const now = Date.now();
      const entries = jobs.map((job) => ({ job, attempts: 0, due: now }));
      if (entries.length === 1) await store.set(entries[0]!.job.id, entries[0]!);
      else await store.setMany(entries.map((entry) => ({ key: entry.job.id, value: entry })));
      for (const entry of entries) {
        known.add(entry.job.id);
        schedule(entry);
      }
    },
    async start(jobHandler) {
      handler = jobHandler;
      const left: Entry[] = [];
      if (store.iterator) {
        // The argument is ignored: Keyv iterates its own namespace.
        for await (const [id, entry] of store.iterator(undefined)) {
          if (typeof id === 'string' && entry && typeof entry === 'object' && !known.has(id)) left.push(entry as Entry);
        }
      }
      left.sort((a, b) => a.due - b.due || a.job.seq - b.job.seq);
      for (const entry of left) {
        known.add(entry.job.id);
        schedule(entry);
      }
      if (left.length > 0) options.logger.info('webhook outbox: resuming pending deliveries', { pending: left.length });
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      ready.length = 0;
      abort.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
