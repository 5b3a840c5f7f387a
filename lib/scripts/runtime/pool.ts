import { Worker } from 'node:worker_threads';
import type { LogLevel } from '../../http/logger.js';
import type { FromWorker, SerializedError, Task, ToWorker } from './protocol.js';
import { serializeError } from './protocol.js';

export type TaskOutcome =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'script_error' | 'timeout' | 'memory' | 'crashed' | 'closed'; error: SerializedError };

export interface TaskHandlers {
  /** Answers a service call the script made (proxy, records, metadata…). */
  onCall(method: string, args: unknown[]): Promise<unknown>;
  onLog(level: LogLevel, message: string): void;
}

export interface WorkerPoolOptions {
  /** Workers alive at most; a task waits when all are busy. */
  size: number;
  /** V8 old-generation heap of each worker (MB). A script that needs more is stopped. */
  heapMb: number;
  /** A worker is replaced after this many tasks, so module-level leaks cannot pile up. Default 200. */
  maxTasksPerWorker?: number;
  /** Idle workers beyond the first are stopped after this long. Default 60 s. */
  idleMs?: number;
  /** Linux nice value of worker threads (0-19): how far scripts yield the CPU to the gateway. Default 10. */
  nice?: number;
  /** Starting a worker and importing the script may take this long; the run's own limit starts after. Default 60 s. */
  loadTimeoutMs?: number;
}

export interface WorkerPool {
  run(file: string, task: Task, handlers: TaskHandlers, timeoutMs: number): Promise<TaskOutcome>;
  stats(): { workers: number; busy: number; queued: number };
  close(): Promise<void>;
}

interface Slot {
  worker: Worker;
  busy: boolean;
  tasks: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** Set while a task runs: how the worker's end or messages reach that task. */
  current: ((event: { kind: 'message'; message: FromWorker } | { kind: 'exit'; error: Error | undefined }) => void) | undefined;
}

// The worker entry sits beside this file; under a TypeScript loader (tests) it is the .ts source.
const entryUrl = new URL(`./worker/entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/**
 * Script runs on worker threads, one task per worker at a time: a run that loops forever or
 * exhausts its heap is stopped by terminating its worker, and the gateway's event loop (the
 * proxy) never runs script code. Warm workers are reused (a fresh one costs ~85 ms).
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const slots = new Set<Slot>();
  const queue: ((slot: Slot | null) => void)[] = [];
  const maxTasks = options.maxTasksPerWorker ?? 200;
  const idleMs = options.idleMs ?? 60_000;
  const nice = Math.min(19, Math.max(0, Math.round(options.nice ?? 10)));
  const loadTimeoutMs = options.loadTimeoutMs ?? 60_000;
  let closed = false;

  const spawn = (): Slot => {
    const worker = new Worker(entryUrl, {
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: Math.max(8, Math.min(64, options.heapMb / 8)) },
    });
    const slot: Slot = { worker, busy: false, tasks: 0, idleTimer: undefined, current: undefined };
    let failure: Error | undefined;
    worker.on('message', (message: FromWorker) => slot.current?.({ kind: 'message', message }));
    worker.on('error', (error) => { failure = error; });
    worker.on('exit', (code) => {
      slots.delete(slot);
      clearTimeout(slot.idleTimer);
      slot.current?.({ kind: 'exit', error: failure ?? new Error(`exited with code ${code}`) });
      replenish();
    });
    slots.add(slot);
    return slot;
  };

  // A task waiting for a worker gets a fresh one in place of one that ended or retired.
  const replenish = () => {
    if (!closed && queue.length > 0 && slots.size < options.size) {
      const fresh = spawn();
      fresh.busy = true;
      queue.shift()?.(fresh);
    }
  };

  // Out of the set at once: a worker being terminated must never be handed another task.
  const retire = (slot: Slot) => {
    slots.delete(slot);
    clearTimeout(slot.idleTimer);
    void slot.worker.terminate();
    replenish();
  };

  const release = (slot: Slot) => {
    slot.busy = false;
    slot.current = undefined;
    if (slot.tasks >= maxTasks || closed) {
      retire(slot);
      return;
    }
    const waiter = queue.shift();
    if (waiter) {
      slot.busy = true;
      waiter(slot);
      return;
    }
    // Keep one warm worker; stop the others once idle for a while.
    if ([...slots].filter((s) => !s.busy).length > 1) {
      slot.idleTimer = setTimeout(() => { if (!slot.busy) retire(slot); }, idleMs);
      slot.idleTimer.unref();
    }
  };

  const acquire = (): Promise<Slot | null> => {
    const idle = [...slots].find((s) => !s.busy);
    if (idle) {
      clearTimeout(idle.idleTimer);
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (slots.size < options.size) {
      const slot = spawn();
      slot.busy = true;
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => queue.push((slot) => {
      if (slot) clearTimeout(slot.idleTimer);
      resolve(slot);
    }));
  };

  return {
    async run(file, task, handlers, timeoutMs) {
      const slot = closed ? null : await acquire();
      if (!slot) return { ok: false, reason: 'closed', error: { name: 'ScriptRuntimeError', message: 'the script runtime is closed', code: 'closed' } };
      slot.tasks++;
      return new Promise<TaskOutcome>((resolve) => {
        let settled = false;
        let stopped: 'timeout' | 'load_timeout' | undefined;
        const finish = (outcome: TaskOutcome, reusable: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(outcome);
          if (reusable) release(slot);
          else slot.current = undefined;
        };
        const stop = (why: 'timeout' | 'load_timeout') => () => {
          stopped = why;
          slots.delete(slot);
          void slot.worker.terminate();
        };
        // Loading (a fresh worker, the script's import) has its own bound; the run's limit starts once the script runs.
        let timer = setTimeout(stop('load_timeout'), Math.max(loadTimeoutMs, timeoutMs));
        const send = (message: ToWorker) => { if (!settled) slot.worker.postMessage(message); };
        slot.current = (event) => {
          if (event.kind === 'exit') {
            const memory = (event.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
            const reason = stopped === 'load_timeout' ? 'timeout' : stopped ?? (memory ? 'memory' : closed ? 'closed' : 'crashed');
            const message = stopped === 'load_timeout' ? `the script's module did not load within ${Math.max(loadTimeoutMs, timeoutMs)} ms and was stopped`
              : reason === 'timeout' ? `the script ran longer than ${timeoutMs} ms and was stopped`
              : reason === 'memory' ? `the script exceeded its ${options.heapMb} MB heap and was stopped`
                : reason === 'closed' ? 'the script runtime closed during the run'
                  : `the script's worker stopped: ${event.error?.message ?? 'exited'}`;
            finish({ ok: false, reason, error: { name: 'ScriptRuntimeError', message, code: reason } }, false);
            return;
          }
          const { message } = event;
          if (message.type === 'started') {
            clearTimeout(timer);
            timer = setTimeout(stop('timeout'), timeoutMs);
          } else if (message.type === 'log') handlers.onLog(message.level, message.message);
          else if (message.type === 'call') {
            handlers.onCall(message.method, message.args).then(
              (value) => send({ type: 'reply', id: message.id, ok: true, value }),
              (error: unknown) => send({ type: 'reply', id: message.id, ok: false, error: serializeError(error) }),
            );
          } else if (message.ok) finish({ ok: true, value: message.value }, true);
          else finish({ ok: false, reason: 'script_error', error: message.error }, true);
        };
        slot.worker.postMessage({ type: 'run', file, task, nice } satisfies ToWorker);
      });
    },
    stats() {
      return { workers: slots.size, busy: [...slots].filter((s) => s.busy).length, queued: queue.length };
    },
    async close() {
      closed = true;
      await Promise.all([...slots].map((slot) => slot.worker.terminate()));
      for (const waiter of queue.splice(0)) waiter(null);
    },
  };
}
