import { Worker } from 'node:worker_threads';
import type { PageReader, PageRequest, PageText } from '../../../lib/storage/index.js';
import type { ReadMessage, ReplyMessage } from './worker.js';

export interface SqlitePageReaderOptions {
  /** The SQLite file (WAL mode) the gateway's own connection writes. */
  path: string;
  /** Reads waiting or running at once; one more is refused at once (the caller answers 503). Default 64. */
  maxPending?: number;
  /** Longest wait for one page once the worker runs; the worker skips a read whose caller has given up. Default 1,500 ms. */
  deadlineMs?: number;
  /** Longest wait for the worker to start (its first read waits for it). Default 10 s. */
  startMs?: number;
}

export interface SqlitePageReader extends PageReader {
  close(): Promise<void>;
}

interface Pending {
  request: PageRequest;
  resolve(page: PageText): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

// Under the TypeScript loader (tests, benches) this file is .ts, and so is its sibling.
const workerUrl = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/**
 * Listing pages read on a worker thread with its own read-only connection: the SQL, the JSON
 * parse of each value and the answer's JSON happen there, so a list call costs the gateway's
 * thread a message, not a millisecond every proxied call waits behind. Writes stay on the
 * gateway's connection; a page reads what is committed (a write's caller is answered after its
 * commit, so a client sees its own writes). The worker starts on the first read (which waits
 * for it, up to `startMs`) and again after a crash.
 */
export function createSqlitePageReader(options: SqlitePageReaderOptions): SqlitePageReader {
  const maxPending = options.maxPending ?? 64;
  const deadlineMs = options.deadlineMs ?? 1_500;
  const startMs = options.startMs ?? 10_000;
  const pending = new Map<number, Pending>();
  let worker: { thread: Worker; ready: boolean; startTimer: NodeJS.Timeout } | undefined;
  let nextId = 0;
  let closed = false;

  const settle = (id: number): Pending | undefined => {
    const entry = pending.get(id);
    if (!entry) return undefined;
    pending.delete(id);
    clearTimeout(entry.timer);
    // An idle worker does not keep the process alive.
    if (pending.size === 0) worker?.thread.unref();
    return entry;
  };

  const failAll = (error: Error) => {
    for (const id of [...pending.keys()]) settle(id)?.reject(error);
  };

  /** Hands one read to the running worker; its deadline starts now. */
  const send = (thread: Worker, id: number, entry: Pending) => {
    entry.timer = setTimeout(
      () => settle(id)?.reject(new Error(`page reader: no page within ${deadlineMs} ms`)),
      deadlineMs,
    );
    const message: ReadMessage = { id, deadline: Date.now() + deadlineMs, request: entry.request };
    thread.postMessage(message);
  };

  const start = () => {
    const thread = new Worker(workerUrl, { workerData: { path: options.path } });
    const gone = (error: Error) => {
      if (worker?.thread !== thread) return;
      clearTimeout(worker.startTimer);
      worker = undefined;
      failAll(error);
      void thread.terminate();
    };
    const startTimer = setTimeout(
      () => gone(new Error(`page reader: the worker did not start in ${startMs} ms`)),
      startMs,
    );
    const started = { thread, ready: false, startTimer };
    thread.on('message', (reply: ReplyMessage) => {
      if ('ready' in reply) {
        clearTimeout(startTimer);
        started.ready = true;
        for (const [id, entry] of pending) send(thread, id, entry);
        return;
      }
      const entry = settle(reply.id);
      if (!entry) return;
      if ('page' in reply) entry.resolve(reply.page);
      else entry.reject(new Error(`page reader: ${reply.error}`));
    });
    thread.on('error', (error) => gone(error));
    thread.on('exit', (code) => gone(new Error(`page reader: the worker exited (${code})`)));
    return started;
  };

  return {
    read(request: PageRequest): Promise<PageText> {
      if (closed) return Promise.reject(new Error('page reader: closed'));
      if (pending.size >= maxPending) {
        return Promise.reject(new Error(`page reader: ${maxPending} reads already waiting`));
      }
      worker ??= start();
      const current = worker;
      const id = nextId++;
      return new Promise<PageText>((resolve, reject) => {
        const entry: Pending = { request, resolve, reject };
        pending.set(id, entry);
        if (pending.size === 1) current.thread.ref();
        // Before the worker is ready, reads wait for it (sent all at once when it is).
        if (current.ready) send(current.thread, id, entry);
      });
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
