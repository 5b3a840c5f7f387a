// The worker thread's entry: runs one task at a time for the pool, turning every effect the
// script asks for into a message to the main thread.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { FromWorker, SerializedError, ToWorker } from '../protocol.js';
import { serializeError } from '../protocol.js';
import { execute, loadScript } from './execute.js';

const port = parentPort;
if (!port) throw new Error('the script worker must run in a worker thread');

// Scripts run at a lower CPU priority than the gateway (Linux: this thread's nice value), so a
// script that spins gets a small share of a core the event loop needs.
let niceSet: number | undefined;
function lowerPriority(nice: number) {
  if (niceSet === nice) return;
  niceSet = nice;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or /proc unavailable: the thread keeps the process's priority.
  }
}

let nextCallId = 1;
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
const post = (message: FromWorker) => port.postMessage(message);

function revive(error: SerializedError): Error {
  return Object.assign(new Error(error.message), { name: error.name, ...(error.code ? { code: error.code } : {}) });
}

const call = (method: string, args: unknown[]) => new Promise<unknown>((resolve, reject) => {
  const id = nextCallId++;
  pending.set(id, { resolve, reject });
  post({ type: 'call', id, method, args });
});

port.on('message', (message: ToWorker) => {
  if (message.type === 'reply') {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (!waiter) return;
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(revive(message.error));
    return;
  }
  void (async () => {
    try {
      lowerPriority(message.nice);
      const script = await loadScript(message.file);
      post({ type: 'started' });
      const value = await execute(script, message.task, call, (level, text) => post({ type: 'log', level, message: text }));
      post({ type: 'done', ok: true, value });
    } catch (error) {
      post({ type: 'done', ok: false, error: serializeError(error) });
    }
  })();
});
