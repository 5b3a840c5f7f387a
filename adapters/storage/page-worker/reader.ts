import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../../lib/worker-thread.js';
import type { PageReader, PageRequest, PageText } from '../../../lib/storage/index.js';
import { viewKey, type LoadMessage, type PageOnWire, type ReadMessage, type ReplyMessage } from './messages.js';

/** The longest wait for one page, unless a reader is given its own `deadlineMs`. */
const defaultDeadlineMs = 1_500;

/** How long and how many: what each back end's page reader lets its caller tune. */
export interface PageReaderLimits {
  /** Reads waiting or running on the worker at once; one more is refused at once (the caller answers 503). Default 64. */
  maxPending?: number;
  /** Longest wait for one page on the worker; the worker skips a read whose caller has given up. Default 1,500 ms. */
  deadlineMs?: number;
  /** Longest wait for the worker to start or to load a view; after that it is stopped and started again later. Default 60 s. */
  startMs?: number;
}

export interface WorkerPageReaderOptions extends PageReaderLimits {
  /** The worker's module: it opens its own source (a connection, a client) and runs `runPageWorker` (runner.ts). */
  worker: URL;
  /** What the worker needs to open its source, cloned into the thread. */
  workerData: unknown;
  /**
   * Reads the page on the caller's thread: used until the worker is ready to run the page's view
   * (or after it crashed), under the same deadline as a read on the worker.
   */
  inProcess: (request: PageRequest) => Promise<PageText>;
}

export interface WorkerPageReader extends PageReader {
  close(): Promise<void>;
}

/** How a read waiting on the worker is answered. */
interface Answer {
  resolve(page: PageText): void;
  reject(error: Error): void;
}

/** A read waiting on the worker; emptied when it settles (`settle`). */
interface Pending {
  answer: Answer | undefined;
  timer: NodeJS.Timeout | undefined;
}

interface Running {
  thread: Worker;
  ready: boolean;
  startTimer: NodeJS.Timeout;
  /** Views the worker has loaded (true) or is loading (false). */
  views: Map<string, boolean>;
}

/**
 * Listing pages read on a worker thread with a source of its own (SQLite: a read-only
 * connection; Redis: a client): the reads, the JSON parse of each value and the answer's JSON
 * happen there, so a list call costs the gateway's thread a message, not a millisecond every
 * proxied call waits behind. The worker starts at the first read; until it runs (and has loaded
 * the page's view) pages are read in process, so no read waits for a thread to start. Every read
 * on the worker has a deadline, and at most `maxPending` wait; a crashed worker is started again
 * at the next read. An idle worker does not keep the process alive.
 */
export function createWorkerPageReader(options: WorkerPageReaderOptions): WorkerPageReader {
  const maxPending = options.maxPending ?? 64;
  const deadlineMs = options.deadlineMs ?? defaultDeadlineMs;
  const startMs = options.startMs ?? 60_000;
  const pending = new Map<number, Pending>();
  let worker: Running | undefined;
  let nextId = 0;
  let closed = false;

  /**
   * Takes the read out of `pending` and empties its entry. Emptied because a Map keeps, in each
   * table it has outgrown (V8 makes a new one every few reads as ids come and go), the entries
   * that table held, and a young-generation collection takes whatever a table in the old
   * generation points to as live, dead table or not. Through an entry's `answer`, the read's
   * promise and the page it settled with (32 KB of text for 100 connections) then outlived
   * every young collection until the next full one, and were copied into the old generation:
   * measured, 16.6 KB a list call on a gateway listing in four loops (0.7 KB emptied), so longer
   * young collections, and full ones, on the thread that answers proxied calls.
   */
  const settle = (id: number): Answer | undefined => {
    const entry = pending.get(id);
    if (!entry) return undefined;
    pending.delete(id);
    clearTimeout(entry.timer);
    if (pending.size === 0) worker?.thread.unref();
    const { answer } = entry;
    entry.answer = entry.timer = undefined;
    return answer;
  };

  const failAll = (error: Error) => {
    for (const id of [...pending.keys()]) settle(id)?.reject(error);
  };

  const start = (): Running => {
    const thread = startWorker(options.worker, { workerData: options.workerData });
    // Kept alive by waiting reads only.
    thread.unref();
    const gone = (error: Error) => {
      if (worker?.thread !== thread) return;
      clearTimeout(worker.startTimer);
      worker = undefined;
      failAll(error);
      void thread.terminate();
    };
    const running: Running = {
      thread,
      ready: false,
      views: new Map(),
      startTimer: setTimeout(() => gone(new Error(`page reader: the worker did not start in ${startMs} ms`)), startMs),
    };
    running.startTimer.unref();
    thread.on('message', (reply: ReplyMessage) => {
      if ('ready' in reply) {
        clearTimeout(running.startTimer);
        running.ready = true;
      } else if ('loaded' in reply) {
        running.views.set(reply.loaded, true);
      } else {
        const answer = settle(reply.id);
        if (!answer) return;
        if ('page' in reply) answer.resolve(pageFromWire(reply.page));
        else answer.reject(new Error(`page reader: ${reply.error}`));
      }
    });
    thread.on('error', (error) => gone(error));
    thread.on('exit', (code) => gone(new Error(`page reader: the worker exited (${code})`)));
    return running;
  };

  const onWorker = (thread: Worker, request: PageRequest): Promise<PageText> => {
    if (pending.size >= maxPending) {
      return Promise.reject(new Error(`page reader: ${maxPending} reads already waiting`));
    }
    const id = nextId++;
    return new Promise<PageText>((resolve, reject) => {
      const timer = setTimeout(
        () => settle(id)?.reject(new Error(`page reader: no page within ${deadlineMs} ms`)),
        deadlineMs,
      );
      pending.set(id, { answer: { resolve, reject }, timer });
      if (pending.size === 1) thread.ref();
      const message: ReadMessage = { id, deadline: Date.now() + deadlineMs, request };
      thread.postMessage(message);
    });
  };

  return {
    read(request: PageRequest): Promise<PageText> {
      if (closed) return Promise.reject(new Error('page reader: closed'));
      worker ??= start();
      const key = viewKey(request.view);
      const loaded = worker.views.get(key);
      if (worker.ready && loaded) return onWorker(worker.thread, request);
      if (worker.ready && loaded === undefined) {
        worker.views.set(key, false);
        worker.thread.postMessage({ load: request.view } satisfies LoadMessage);
      }
      return withinDeadline(options.inProcess(request), deadlineMs);
    },
    async close() {
      closed = true;
      const stopping = worker;
      worker = undefined;
      if (stopping) clearTimeout(stopping.startTimer);
      failAll(new Error('page reader: closed'));
      await stopping?.thread.terminate();
    },
  };
}

/** The page as its bytes arrived (a plain `Uint8Array`), with `json` a Buffer over the same memory. */
function pageFromWire({ json, ...page }: PageOnWire): PageText {
  return { ...page, json: Buffer.from(json.buffer, json.byteOffset, json.byteLength) };
}

/**
 * A read in process fails after `ms` too: a command sent to a store that stopped answering (a
 * Redis cut mid-way) would otherwise wait for no timeout of the client's.
 */
function withinDeadline(read: Promise<PageText>, ms: number): Promise<PageText> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`page reader: no page within ${ms} ms`)), ms);
  });
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}
