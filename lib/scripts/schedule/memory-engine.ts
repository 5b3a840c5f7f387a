import type { Logger } from '../../http/logger.js';
import type { JobEngine, JobHandler, ScriptJob } from './jobs.js';

/**
 * Schedules on this process's timers and jobs run at once in the background. Right for memory
 * and SQLite storage, which one process owns; a shared store needs the BullMQ engine.
 */
export function createMemoryEngine(logger: Logger): JobEngine {
  const timers = new Map<string, { timer: NodeJS.Timeout; next: number }>();
  const running = new Set<Promise<void>>();
  const inFlight = new Set<string>();
  let handler: JobHandler | undefined;
  let closed = false;

  const run = (job: ScriptJob, scheduledAt: number | null, dedupeId?: string) => {
    if (closed || !handler) return;
    if (dedupeId !== undefined) {
      if (inFlight.has(dedupeId)) return;
      inFlight.add(dedupeId);
    }
    const promise = handler(job, { scheduledAt })
      .catch((error: unknown) => logger.error('script job failed', { job: job.type, error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running.delete(promise);
        if (dedupeId !== undefined) inFlight.delete(dedupeId);
      });
    running.add(promise);
  };

  return {
    kind: 'memory',
    async start(h) {
      handler = h;
    },
    async schedule(id, everyMs, job) {
      const existing = timers.get(id);
      if (existing) clearInterval(existing.timer);
      const entry = { next: Date.now() + everyMs, timer: undefined as unknown as NodeJS.Timeout };
      entry.timer = setInterval(() => {
        const slot = entry.next;
        entry.next += everyMs;
        run(job, slot, `${id}@${slot}`);
      }, everyMs);
      timers.set(id, entry);
    },
    async unschedule(id) {
      const entry = timers.get(id);
      if (entry) clearInterval(entry.timer);
      timers.delete(id);
    },
    async nextRun(id) {
      return timers.get(id)?.next ?? null;
    },
    async enqueue(job, dedupeId) {
      run(job, null, dedupeId);
    },
    async close() {
      closed = true;
      for (const entry of timers.values()) clearInterval(entry.timer);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
