import { setMaxListeners } from 'node:events';
import {
  resolveQueueOptions,
  type JobHandler,
  type JobOutcome,
  type QueueCounts,
  type QueueOptions,
  type WorkQueue,
} from '../../../lib/queue/index.js';
import type { Storage } from '../../../lib/storage/index.js';
import { createEntryStore, type Entry, type Settlement } from './keyv-entries.js';
import { createScheduleStore } from './keyv-schedules.js';

export interface KeyvQueueOptions extends QueueOptions {
  /** How often the store is read for jobs another handle enqueued or a dead worker left claimed. */
  pollMs?: number;
  /** How often due schedules are fired. Default 1 s. */
  tickMs?: number;
}

/** setTimeout's ceiling; later wake-ups come from the periodic scan. */
const maxTimerMs = 2 ** 31 - 1;
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The durable outbox on the storage's own Keyv store (memory, SQLite, any store Keyv can
 * iterate): every job is written before `enqueue` resolves; a worker claims it under the
 * coordinator's lock with a visibility timeout it renews while running, and settles it (deleted,
 * retried later, or moved to the dead letters). On start, and every `pollMs`, it reads the store
 * back, so jobs left by a stopped or crashed process run, the ones a dead worker held once its
 * claim lapses. Across processes it is exactly as exclusive as the storage's coordinator.
 */
export function createKeyvQueue<T>(storage: Storage, name: string, options: KeyvQueueOptions = {}): WorkQueue<T> {
  const settings = resolveQueueOptions(options);
  const onError = settings.onError ?? (() => {});
  const pollMs = options.pollMs ?? (storage.shared ? 2_000 : 30_000);
  const tickMs = options.tickMs ?? 1_000;
  const kv = storage.keyv<Entry<T>>(`queue:${name}`);
  if (!kv.iterator)
    throw new Error(
      `storage "${storage.kind}" cannot list its keys, so it cannot hold the outbox; its adapter must supply its own queue`,
    );
  const entries = createEntryStore<T>(kv, storage.coordinator, name, settings);
  const schedules = createScheduleStore<T>(storage.keyv(`queue-schedules`), storage.coordinator, name);

  const timers = new Map<string, NodeJS.Timeout>();
  const ready = new Set<string>();
  const inFlight = new Map<string, Promise<void>>();
  const abort = new AbortController();
  // Every attempt in flight listens for shutdown on this one signal.
  setMaxListeners(0, abort.signal);
  let handler: JobHandler<T> | undefined;
  let concurrency = 1;
  let loop: NodeJS.Timeout | undefined;
  let lastScan = 0;
  // A queue without schedules (the webhooks') looks for new ones only when it polls.
  let hasSchedules = true;
  let closed = false;

  /** Makes `id` ready at `at`; one timer per id at most. */
  const wake = (id: string, at: number) => {
    if (closed || inFlight.has(id) || ready.has(id) || timers.has(id)) return;
    const wait = at - Date.now();
    if (wait <= 0) {
      ready.add(id);
      pump();
      return;
    }
    // Unref'd: a pending retry must not keep the host process alive; it is in the store anyway.
    const timer = setTimeout(
      () => {
        timers.delete(id);
        ready.add(id);
        pump();
      },
      Math.min(wait, maxTimerMs),
    );
    timer.unref();
    timers.set(id, timer);
  };

  const attempt = async (entry: Entry<T>, signal: AbortSignal): Promise<Settlement> => {
    let outcome: JobOutcome | void;
    try {
      outcome = await (handler as JobHandler<T>)(
        { id: entry.id, data: entry.data, attempt: entry.attempts + 1, scheduledAt: entry.slot },
        signal,
      );
    } catch (error) {
      if (closed) return { kind: 'release' };
      onError('queued job failed', { queue: name, job: entry.id, error: describe(error) });
      return { kind: 'retry', delayMs: settings.errorDelayMs, error: describe(error) };
    }
    if (!outcome || outcome.kind === 'done') return { kind: 'done' };
    return outcome.kind === 'retry' ? outcome : { kind: 'release' };
  };

  /** One claim and attempt; returns when to look at the job again, if it is still waiting. */
  const run = async (id: string): Promise<number | null> => {
    const claimed = await entries.claim(id);
    if (claimed.token === null) {
      // Held by another worker, or not due yet: look again when that can have changed.
      const { entry } = claimed;
      return entry?.state === 'waiting' ? Math.max(entry.due, entry.claim?.until ?? 0) : null;
    }
    const { entry, token } = claimed;
    const cut = new AbortController();
    const stop = () => cut.abort();
    abort.signal.addEventListener('abort', stop, { once: true });
    const heartbeat = setInterval(
      () => {
        entries.renew(id, token).then(
          (held) => {
            if (!held) cut.abort(); // another worker has it now: stop, its run counts
          },
          (error: unknown) => onError('queue claim renewal failed', { queue: name, job: id, error: describe(error) }),
        );
      },
      Math.max(50, Math.floor(settings.visibilityTimeoutMs / 3)),
    );
    heartbeat.unref();
    let settlement: Settlement;
    try {
      settlement = await attempt(entry, cut.signal);
    } finally {
      clearInterval(heartbeat);
      abort.signal.removeEventListener('abort', stop);
    }
    const stored = await entries.settle(id, token, settlement);
    return stored?.state === 'waiting' && settlement.kind !== 'release' ? stored.due : null;
  };

  function pump() {
    while (!closed && handler && inFlight.size < concurrency && ready.size > 0) {
      const id = ready.values().next().value as string;
      ready.delete(id);
      const running: Promise<void> = run(id)
        .catch((error: unknown) => {
          // The store refused a claim or a settlement: the job stays as stored and comes back.
          onError('queue store operation failed', { queue: name, job: id, error: describe(error) });
          return Date.now() + settings.errorDelayMs;
        })
        .then((again) => {
          inFlight.delete(id);
          if (again !== null) wake(id, again);
          pump();
        });
      inFlight.set(id, running);
    }
  }

  const scan = async () => {
    lastScan = Date.now();
    const found: Entry<T>[] = [];
    // The argument is ignored: Keyv iterates its own namespace.
    for await (const [, entry] of (kv.iterator as NonNullable<typeof kv.iterator>)(undefined)) {
      if (entry && typeof entry === 'object' && (entry as Entry<T>).state === 'waiting') found.push(entry as Entry<T>);
    }
    found.sort((a, b) => a.due - b.due);
    for (const entry of found) wake(entry.id, Math.max(entry.due, entry.claim?.until ?? 0));
  };

  const tick = async () => {
    const polling = Date.now() - lastScan >= pollMs;
    if (hasSchedules || polling) {
      hasSchedules = await schedules.fire(async (id, slot, data) => {
        for (const added of await entries.add([{ id: `${id}@${slot}`, data }], slot)) wake(added.id, added.due);
      });
    }
    if (polling) await scan();
  };

  const loopOnce = () => {
    tick()
      .catch((error: unknown) => onError('queue poll failed', { queue: name, error: describe(error) }))
      .finally(() => {
        if (closed) return;
        loop = setTimeout(loopOnce, tickMs);
        loop.unref();
      });
  };

  return {
    kind: 'outbox',
    async enqueue(jobs) {
      for (const entry of await entries.add(jobs)) wake(entry.id, entry.due);
    },
    async schedule(id, everyMs, data) {
      await schedules.upsert(id, everyMs, data);
      hasSchedules = true;
    },
    unschedule: (id) => schedules.remove(id),
    nextRun: (id) => schedules.next(id),
    async start(jobHandler, workerOptions) {
      handler = jobHandler;
      concurrency = Math.max(1, workerOptions.concurrency);
      await scan();
      pump();
      loopOnce();
    },
    async counts() {
      const counts: QueueCounts = { waiting: 0, delayed: 0, active: 0, dead: 0 };
      const now = Date.now();
      for await (const [, value] of (kv.iterator as NonNullable<typeof kv.iterator>)(undefined)) {
        const entry = value as Entry<T> | undefined;
        if (!entry || typeof entry !== 'object') continue;
        if (entry.state === 'dead') counts.dead++;
        else if (entry.state !== 'waiting') continue;
        else if (entry.claim && entry.claim.until > now) counts.active++;
        else if (entry.due > now) counts.delayed++;
        else counts.waiting++;
      }
      return counts;
    },
    async close() {
      closed = true;
      clearTimeout(loop);
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      ready.clear();
      abort.abort();
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
