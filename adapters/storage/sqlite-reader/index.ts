import { siblingWorker } from '../../../lib/worker-thread.js';
import type { PageRequest, PageText } from '../../../lib/storage/index.js';
import type { SqliteDriver } from '../sqlite-driver.js';
import { createWorkerPageReader, type PageReaderLimits, type WorkerPageReader } from '../page-worker/reader.js';
import type { SqliteWorkerData } from './worker.js';

export interface SqlitePageReaderOptions extends PageReaderLimits {
  /** The SQLite file (WAL mode) the gateway's own connection writes. */
  path: string;
  /** The driver of the gateway's own connection: the worker opens its read-only one on the same. */
  driver: SqliteDriver;
  /** Reads the page on the caller's thread: used until the worker is ready to run the page's view. */
  inProcess: (request: PageRequest) => Promise<PageText>;
}

export type SqlitePageReader = WorkerPageReader;

const worker = siblingWorker(import.meta.url, 'worker');

/**
 * SQLite's listing pages read on a worker thread (page-worker/reader.ts) with its own read-only
 * connection. Writes stay on the gateway's connection; a page reads what is committed (a write's
 * caller is answered after its commit, so a client sees its own writes).
 */
export function createSqlitePageReader(options: SqlitePageReaderOptions): SqlitePageReader {
  const { path, driver, ...rest } = options;
  return createWorkerPageReader({ ...rest, worker, workerData: { path, driver } satisfies SqliteWorkerData });
}
