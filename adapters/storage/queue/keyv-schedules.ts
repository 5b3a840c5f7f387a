import type Keyv from 'keyv';
import type { Coordinator } from '../../../lib/coordination/index.js';

interface Schedule<T> {
  everyMs: number;
  data: T;
  /** The next slot to fire (epoch ms), a multiple of `everyMs`. */
  next: number;
}

type Schedules<T> = Record<string, Schedule<T>>;

/** The first slot after `now`: slots are multiples of the period, the same for every instance. */
const slotAfter = (now: number, everyMs: number) => Math.floor(now / everyMs) * everyMs + everyMs;

/**
 * Repeatable schedules of one queue, kept together under one key (there are few: one per sync
 * and integration). Firing is a read-modify-write under the coordinator's lock, so each slot is
 * claimed by one instance; the job id names the slot, so even a fire repeated after a crash
 * between the enqueue and the write is deduplicated by the queue.
 */
export function createScheduleStore<T>(kv: Keyv<Schedules<T>>, coordinator: Coordinator, name: string) {
  const key = name;
  const locked = <R>(fn: () => Promise<R>) =>
    coordinator.withLock(`queue:${name}:schedules`, fn, { ttlMs: 10_000, waitMs: 15_000 });
  const read = async () => (await kv.get(key)) ?? {};

  return {
    upsert: (id: string, everyMs: number, data: T) =>
      locked(async () => {
        const all = await read();
        const existing = all[id];
        // The same period keeps its next slot: a slot due while every instance was down still fires.
        const next = existing && existing.everyMs === everyMs ? existing.next : slotAfter(Date.now(), everyMs);
        await kv.set(key, { ...all, [id]: { everyMs, data, next } });
      }),

    remove: (id: string) =>
      locked(async () => {
        const { [id]: gone, ...rest } = await read();
        if (gone) await kv.set(key, rest);
      }),

    async next(id: string): Promise<number | null> {
      return (await read())[id]?.next ?? null;
    },

    /**
     * Fires every due schedule once: `enqueue` gets the latest due slot of each (missed slots
     * collapse into one), and the schedule moves to the slot after now. Answers whether the
     * queue has any schedule at all.
     */
    fire: (enqueue: (id: string, slot: number, data: T) => Promise<void>) =>
      locked(async () => {
        const all = await read();
        const now = Date.now();
        let changed = false;
        for (const [id, s] of Object.entries(all)) {
          if (s.next > now) continue;
          const slot = s.next + Math.floor((now - s.next) / s.everyMs) * s.everyMs;
          await enqueue(id, slot, s.data);
          all[id] = { ...s, next: slot + s.everyMs };
          changed = true;
        }
        if (changed) await kv.set(key, all);
        return Object.keys(all).length > 0;
      }),
  };
}
