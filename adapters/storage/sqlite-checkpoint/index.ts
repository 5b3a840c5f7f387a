import type { Worker } from 'node:worker_threads';
import { siblingWorker, startWorker } from '../../../lib/worker-thread.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import type { CheckpointReport, CheckpointWorkerData } from './messages.js';

/** SQLite's own threshold (pages of WAL after which a commit checkpoints on the committing connection). */
const inlineFrames = 1_000;

export interface CheckpointerOptions {
  /** Pause between the worker's passes while writes come. Default 100 ms. */
  everyMs?: number;
  /** WAL frames (pages) past which the worker restarts the WAL. Default 4,000 (16 MiB of 4 KiB pages). */
  restartFrames?: number;
  /**
   * While the worker checkpoints, the gateway's connection still checkpoints past this many
   * frames (the WAL's bound should the worker fall behind). Default 20,000.
   */
  backstopFrames?: number;
  /** A running worker that has not reported for this long is taken as hung: stopped, and the gateway checkpoints. Default 5 s. */
  staleMs?: number;
  /** Longest wait for a worker to start (its thread and its connection). Default 60 s. */
  startMs?: number;
  /** After the worker failed, how long before another is started. Default 30 s. */
  retryMs?: number;
  /**
   * The WAL file's size on disk, in frames, that a restart truncates it back to: under steady
   * writes a restart finds the WAL a little past `restartFrames`, and past the backstop when
   * restarts were refused a while; without a limit the file keeps its largest size for good.
   * Default twice `restartFrames`, so the usual restart does not shrink a file that regrows at once.
   */
  keepFrames?: number;
  /** Commits (`committed()` calls) before the first worker starts: a store that barely writes needs no thread. Default 0: at once. */
  startAfterCommits?: number;
  /** The worker's module (tests give a misbehaving one). */
  worker?: URL;
}

export interface Checkpointer {
  /** Whether the worker checkpoints now (false: the gateway's connection does, as SQLite does by default). */
  readonly active: boolean;
  /** Told of each commit on the gateway's connection, until the worker has started. */
  committed(): void;
  close(): Promise<void>;
}

const defaultWorker = siblingWorker(import.meta.url, 'worker');

/**
 * Checkpoints a WAL-mode file on a worker thread. SQLite's default checkpoints on the connection
 * that commits, after the commit that takes the WAL past 1,000 pages: on the gateway's thread,
 * in the middle of a request (an import's writes rewrite the same B-tree pages, and copying them
 * back was a tenth of an import's CPU). While a worker runs, the gateway's connection checkpoints
 * only past `backstopFrames`; when the worker is not running (not yet started, starting, crashed,
 * hung past `staleMs`) it checkpoints at SQLite's default again, so the WAL stays bounded either way.
 */
export function createSqliteCheckpointer(
  db: SqliteDatabase,
  driver: CheckpointWorkerData['driver'],
  options: CheckpointerOptions = {},
): Checkpointer {
  const backstopFrames = options.backstopFrames ?? 20_000;
  const staleMs = options.staleMs ?? 5_000;
  const startMs = options.startMs ?? 60_000;
  const retryMs = options.retryMs ?? 30_000;
  const workerData: CheckpointWorkerData = {
    path: db.name,
    driver,
    everyMs: options.everyMs ?? 100,
    restartFrames: options.restartFrames ?? 4_000,
  };
  // SQLite truncates the WAL to this many bytes when a writer starts it again from the beginning.
  const pageSize = db.prepare<[], { page_size: number }>('PRAGMA page_size').get()?.page_size ?? 4096;
  db.exec(`PRAGMA journal_size_limit = ${(options.keepFrames ?? 2 * workerData.restartFrames) * pageSize}`);
  let thread: Worker | undefined;
  let active = false;
  /** When the worker last reported; while it starts, when it was started. */
  let lastReport = 0;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const inline = (frames: number) => {
    if (db.open) db.exec(`PRAGMA wal_autocheckpoint = ${frames}`);
  };

  /** The gateway checkpoints again, the worker goes, and another starts after `retryMs`. */
  const fallBack = (stopping: Worker) => {
    if (thread !== stopping) return;
    thread = undefined;
    active = false;
    inline(inlineFrames);
    void stopping.terminate();
    if (!closed) {
      retry = setTimeout(start, retryMs);
      retry.unref();
    }
  };

  const start = () => {
    if (closed) return;
    const started = startWorker(options.worker ?? defaultWorker, { workerData });
    // A checkpointer is no reason for the process to stay up.
    started.unref();
    thread = started;
    lastReport = Date.now();
    started.on('message', (report: CheckpointReport) => {
      lastReport = Date.now();
      if ('ready' in report && thread === started && !active) {
        active = true;
        inline(backstopFrames);
      }
    });
    started.on('error', () => fallBack(started));
    started.on('exit', () => fallBack(started));
  };

  // One clock for a worker that stopped reporting, or never started.
  const watchdog = setInterval(
    () => {
      if (thread && Date.now() - lastReport > (active ? staleMs : startMs)) fallBack(thread);
    },
    Math.max(50, Math.min(1_000, staleMs / 4)),
  );
  watchdog.unref();
  const startAfter = options.startAfterCommits ?? 0;
  let commits = 0;
  if (startAfter === 0) start();

  return {
    get active() {
      return active;
    },
    committed() {
      if (commits < startAfter && ++commits === startAfter) start();
    },
    async close() {
      closed = true;
      clearInterval(watchdog);
      clearTimeout(retry);
      const stopping = thread;
      thread = undefined;
      active = false;
      inline(inlineFrames);
      await stopping?.terminate();
    },
  };
}
