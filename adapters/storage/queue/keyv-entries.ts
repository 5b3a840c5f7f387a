import { randomUUID } from 'node:crypto';
import type Keyv from 'keyv';
import type { Coordinator } from '../../../lib/coordination/index.js';
import type { NewJob } from '../../../lib/queue/index.js';

/** A job as the outbox stores it. Active = waiting with a claim that has not lapsed. */
export interface Entry<T = unknown> {
  id: string;
  data: T;
  state: 'waiting' | 'done' | 'dead';
  /** Counted attempts made so far. */
  attempts: number;
  /** Not before this time (epoch ms). */
  due: number;
  claim: { token: string; until: number } | null;
  slot: number | null;
  error?: string;
}

export type Claimed<T> = { entry: Entry<T>; token: string };

/** The settled result of an attempt, as the store records it. */
export type Settlement = { kind: 'done' } | { kind: 'retry'; delayMs: number; error?: string } | { kind: 'release' };

export interface EntryStoreOptions {
  visibilityTimeoutMs: number;
  maxAttempts: number;
  keepDoneMs: number;
  keepDeadMs: number;
}

/**
 * The outbox's entries on any Keyv store, every read-modify-write under the coordinator's lock
 * on the job id: as exclusive as the coordinator is (one process for the in-memory one).
 */
export function createEntryStore<T>(
  kv: Keyv<Entry<T>>,
  coordinator: Coordinator,
  name: string,
  options: EntryStoreOptions,
) {
  const locked = <R>(id: string, fn: () => Promise<R>) =>
    coordinator.withLock(`queue:${name}:${id}`, fn, { ttlMs: 10_000, waitMs: 15_000 });
  const mine = (entry: Entry<T> | undefined, token: string): entry is Entry<T> =>
    entry?.state === 'waiting' && entry.claim?.token === token;

  return {
    /** Stores the jobs whose ids are unknown; returns the entries stored. */
    async add(jobs: readonly NewJob<T>[], slot: number | null = null): Promise<Entry<T>[]> {
      const added: Entry<T>[] = [];
      const now = Date.now();
      await Promise.all(
        jobs.map((job) =>
          locked(job.id, async () => {
            if (await kv.has(job.id)) return;
            const entry: Entry<T> = {
              id: job.id,
              data: job.data,
              state: 'waiting',
              attempts: 0,
              due: now + (job.delayMs ?? 0),
              claim: null,
              slot,
            };
            await kv.set(job.id, entry);
            added.push(entry);
          }),
        ),
      );
      return added;
    },

    /** Takes the job if it is due and nobody holds it; null otherwise (with the entry, to know when to look again). */
    claim: (id: string) =>
      locked(id, async (): Promise<Claimed<T> | { entry: Entry<T> | undefined; token: null }> => {
        const entry = await kv.get(id);
        const now = Date.now();
        if (!entry || entry.state !== 'waiting' || entry.due > now || (entry.claim && entry.claim.until > now))
          return { entry, token: null };
        const token = randomUUID();
        const claimed = { ...entry, claim: { token, until: now + options.visibilityTimeoutMs } };
        await kv.set(id, claimed);
        return { entry: claimed, token };
      }),

    /** Extends the claim; false when it was lost (lapsed and taken by another worker). */
    renew: (id: string, token: string) =>
      locked(id, async () => {
        const entry = await kv.get(id);
        if (!mine(entry, token)) return false;
        await kv.set(id, { ...entry, claim: { token, until: Date.now() + options.visibilityTimeoutMs } });
        return true;
      }),

    /** Records the outcome if the claim is still ours; returns the entry as stored, or null if it was not ours. */
    settle: (id: string, token: string, outcome: Settlement) =>
      locked(id, async (): Promise<Entry<T> | null> => {
        const entry = await kv.get(id);
        if (!mine(entry, token)) return null;
        if (outcome.kind === 'release') {
          const released = { ...entry, claim: null };
          await kv.set(id, released);
          return released;
        }
        if (outcome.kind === 'done') {
          const done = { ...entry, state: 'done' as const, claim: null };
          if (options.keepDoneMs > 0) await kv.set(id, done, options.keepDoneMs);
          else await kv.delete(id);
          return done;
        }
        const attempts = entry.attempts + 1;
        const error = outcome.error === undefined ? {} : { error: outcome.error };
        if (attempts >= options.maxAttempts) {
          const dead = { ...entry, ...error, attempts, state: 'dead' as const, claim: null };
          await kv.set(id, dead, options.keepDeadMs);
          return dead;
        }
        const next = { ...entry, ...error, attempts, due: Date.now() + outcome.delayMs, claim: null };
        await kv.set(id, next);
        return next;
      }),
  };
}

export type EntryStore<T> = ReturnType<typeof createEntryStore<T>>;
