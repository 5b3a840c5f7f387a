import type { QueueCounts } from '../queue/index.js';
import type { ReadinessCheck } from './readiness.js';

/**
 * A work queue answers its counts: its back end is reachable, so accepted work can be stored and
 * claimed. The detail says how much waits, for an operator reading the route.
 */
export function queueCheck(name: string, counts: () => Promise<QueueCounts>): ReadinessCheck {
  return async () => {
    try {
      const c = await counts();
      return { ok: true, detail: `${c.waiting} waiting, ${c.delayed} delayed, ${c.active} active, ${c.dead} dead` };
    } catch {
      return { ok: false, detail: `the ${name} queue is not answering` };
    }
  };
}
