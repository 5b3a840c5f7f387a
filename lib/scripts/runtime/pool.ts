import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogLevel } from '../../http/logger.js';
import { childFlags } from './child-flags.js';
import type { SerializedError, Task, ToWorker } from './protocol.js';
import { runtimeFile } from './runtime-file.js';
import { createTaskChannel } from './task-channel.js';

export type TaskOutcome =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'script_error' | 'timeout' | 'memory' | 'crashed' | 'closed'; error: SerializedError };

export interface TaskHandlers {
  /** Answers a service call the script made (proxy, records, metadata…). */
  onCall(method: string, args: unknown[]): Promise<unknown>;
  onLog(level: LogLevel, message: string): void;
}

export interface WorkerPoolOptions {
  /** Script processes alive at most; a task waits when all are busy. */
  size: number;
  /** V8 old-generation heap of each process (MB). A script that needs more is stopped. */
  heapMb: number;
  /** A process is replaced after this many tasks, so module-level leaks cannot pile up. Default 200. */
  maxTasksPerWorker?: number;
  /** Idle processes beyond the first are stopped after this long. Default 60 s. */
  idleMs?: number;
  /** Linux nice value of script processes (0-19): how far scripts yield the CPU to the gateway. Default 10. */
  nice?: number;
  /** Starting a process and importing the script may take this long; the run's own limit starts after. Default 60 s. */
  loadTimeoutMs?: number;
  /** Files and folders (trailing `/`) script processes may read: the bundle folder, registered modules. */
  readable?: readonly string[];
  /** Where the runtime's one file is written. Default `<tmp>/portico-runtime-<uid>`. */
  runtimeDir?: string;
  /** Service calls one run may have in flight. Default 64. */
  maxCallsInFlight?: number;
}

export interface WorkerPool {
  run(file: string, task: Task, handlers: TaskHandlers, timeoutMs: number): Promise<TaskOutcome>;
  stats(): { workers: number; busy: number; queued: number };
  close(): Promise<void>;
}

interface Slot {
  child: ChildProcess;
  /** The environment whose scripts this process runs: a process never serves two environments. */
  tenant: string;
  busy: boolean;
  tasks: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** The end of the process's stderr: how an out-of-memory abort is told from other crashes. */
  stderrTail: string;
  current: ((event: { kind: 'message'; message: unknown } | { kind: 'exit'; error: string }) => void) | undefined;
}

interface Waiter {
  tenant: string;
  take(slot: Slot | null): void;
}

const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
// A run's environment; the operator's registered modules are inspected in processes of their own.
const tenantOf = (task: Task) =>
  task.type === 'inspect' ? `inspect:${task.environment ?? ''}` : task.context.environment;

/**
 * Script runs in separate Node processes under the permission model, one task per process at a
 * time, warm processes reused per environment. A process holds no secret: an empty environment,
 * reads limited to the runtime file and the bundles, no writes, no child processes, no workers,
 * no addons. A run that loops forever, exhausts its heap or crashes ends its process, never the
 * gateway; every effect is a message the gateway answers for that run only.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const slots = new Set<Slot>();
  const queue: Waiter[] = [];
  const maxTasks = options.maxTasksPerWorker ?? 200;
  const idleMs = options.idleMs ?? 60_000;
  const nice = Math.min(19, Math.max(0, Math.round(options.nice ?? 10)));
  const loadTimeoutMs = options.loadTimeoutMs ?? 60_000;
  const runtimeDir = options.runtimeDir ?? join(tmpdir(), `portico-runtime-${uid}`);
  let runtime: string | undefined;
  let closed = false;

  const spawn = (tenant: string): Slot => {
    const child = fork(runtime as string, [], {
      execArgv: childFlags({ readable: [runtime as string, ...(options.readable ?? [])], heapMb: options.heapMb }),
      // Nothing of the gateway's environment: no key, no store URL, no NODE_OPTIONS.
      env: {},
      cwd: runtimeDir,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const slot: Slot = {
      child,
      tenant,
      busy: true,
      tasks: 0,
      idleTimer: undefined,
      stderrTail: '',
      current: undefined,
    };
    try {
      if (child.pid) setPriority(child.pid, nice);
    } catch {
      // Not permitted here: the process keeps the gateway's priority.
    }
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      slot.stderrTail = (slot.stderrTail + chunk).slice(-2048);
    });
    // Read only for a crash's reason: never what keeps the gateway's process alive.
    (child.stderr as Socket | null)?.unref();
    child.on('message', (message) => slot.current?.({ kind: 'message', message }));
    let ended = false;
    const end = (error: string) => {
      if (ended) return;
      ended = true;
      slots.delete(slot);
      clearTimeout(slot.idleTimer);
      slot.current?.({ kind: 'exit', error });
      replenish();
    };
    child.on('error', (error) => {
      child.kill('SIGKILL');
      end(error.message);
    });
    child.on('exit', (code, signal) => end(signal ? `killed by ${signal}` : `exited with code ${code}`));
    slots.add(slot);
    return slot;
  };

  // A waiting task gets a fresh process in place of one that ended or retired.
  const replenish = () => {
    const waiter = queue[0];
    if (closed || !waiter || slots.size >= options.size) return;
    queue.shift();
    waiter.take(spawn(waiter.tenant));
  };

  // Out of the set at once: a process being stopped must never be handed another task.
  const retire = (slot: Slot) => {
    slots.delete(slot);
    clearTimeout(slot.idleTimer);
    slot.child.kill('SIGKILL');
    replenish();
  };

  const release = (slot: Slot) => {
    slot.busy = false;
    slot.current = undefined;
    if (slot.tasks >= maxTasks || closed) return retire(slot);
    const same = queue.findIndex((w) => w.tenant === slot.tenant);
    if (same >= 0) {
      slot.busy = true;
      queue.splice(same, 1)[0]?.take(slot);
      return;
    }
    // Another environment is waiting: this process makes room for one of its own.
    if (queue.length > 0) return retire(slot);
    if ([...slots].filter((s) => !s.busy).length > 1) {
      slot.idleTimer = setTimeout(() => {
        if (!slot.busy) retire(slot);
      }, idleMs);
      slot.idleTimer.unref();
    }
  };

  const acquire = (tenant: string): Promise<Slot | null> => {
    const idle = [...slots].find((s) => !s.busy && s.tenant === tenant);
    if (idle) {
      clearTimeout(idle.idleTimer);
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (slots.size >= options.size) {
      const other = [...slots].find((s) => !s.busy);
      if (other) retire(other);
    }
    if (slots.size < options.size) return Promise.resolve(spawn(tenant));
    return new Promise((resolve) => queue.push({ tenant, take: resolve }));
  };

  const closedOutcome: TaskOutcome = {
    ok: false,
    reason: 'closed',
    error: { name: 'ScriptRuntimeError', message: 'the script runtime is closed', code: 'closed' },
  };

  return {
    async run(file, task, handlers, timeoutMs) {
      runtime ??= await runtimeFile(runtimeDir);
      const slot = closed ? null : await acquire(tenantOf(task));
      if (!slot) return closedOutcome;
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
          slot.child.kill('SIGKILL');
        };
        const loadLimit = Math.max(loadTimeoutMs, timeoutMs);
        // Loading (a fresh process, the script's import) has its own bound; the run's limit starts once the script runs.
        let timer = setTimeout(stop('load_timeout'), loadLimit);
        const send = (message: ToWorker) => {
          if (settled || !slot.child.connected) return;
          try {
            slot.child.send(message);
          } catch (error) {
            // An answer that cannot be serialized fails that call, not the gateway.
            if (message.type === 'reply' && message.ok)
              send({
                type: 'reply',
                id: message.id,
                ok: false,
                error: {
                  name: 'Error',
                  message: `the answer could not be passed to the script: ${(error as Error).message}`,
                },
              });
          }
        };
        const onMessage = createTaskChannel(
          handlers,
          send,
          {
            started() {
              clearTimeout(timer);
              timer = setTimeout(stop('timeout'), timeoutMs);
            },
            done(result) {
              finish(result.ok ? result : { ok: false, reason: 'script_error', error: result.error }, true);
            },
          },
          options.maxCallsInFlight ?? 64,
        );
        slot.current = (event) => {
          if (event.kind === 'message') return onMessage(event.message);
          const memory = /heap out of memory|Reached heap limit/i.test(slot.stderrTail);
          const reason = stopped ? 'timeout' : memory ? 'memory' : closed ? 'closed' : 'crashed';
          const message =
            stopped === 'load_timeout'
              ? `the script's module did not load within ${loadLimit} ms and was stopped`
              : reason === 'timeout'
                ? `the script ran longer than ${timeoutMs} ms and was stopped`
                : reason === 'memory'
                  ? `the script exceeded its ${options.heapMb} MB heap and was stopped`
                  : reason === 'closed'
                    ? 'the script runtime closed during the run'
                    : `the script's process stopped: ${event.error}`;
          finish({ ok: false, reason, error: { name: 'ScriptRuntimeError', message, code: reason } }, false);
        };
        send({ type: 'run', file, task });
      });
    },
    stats() {
      return { workers: slots.size, busy: [...slots].filter((s) => s.busy).length, queued: queue.length };
    },
    async close() {
      closed = true;
      const exits = [...slots].map(
        (slot) =>
          new Promise<void>((resolve) => {
            if (slot.child.exitCode !== null || slot.child.signalCode !== null) return resolve();
            slot.child.once('exit', () => resolve());
            slot.child.kill('SIGKILL');
          }),
      );
      for (const waiter of queue.splice(0)) waiter.take(null);
      await Promise.all(exits);
    },
  };
}
