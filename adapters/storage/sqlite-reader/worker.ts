import { workerData } from 'node:worker_threads';
import { collectPage, type PageRequest } from '../../../lib/storage/page-reader.js';
import { storedValue } from '../deserialize.js';
import { runPageWorker } from '../page-worker/runner.js';
import { openReadConnection } from './driver.js';
import type { SqliteDriver } from '../sqlite-driver.js';

/** What the SQLite page reader's worker is started with (index.ts). */
export interface SqliteWorkerData {
  path: string;
  driver: SqliteDriver;
}

const { path, driver } = workerData as SqliteWorkerData;
const db = openReadConnection(path, driver);

/** One page on one snapshot: positions and values read in the same read transaction. */
async function read(request: PageRequest) {
  db.begin();
  try {
    return await collectPage(
      {
        positions: (list, limit, after, reverse) => db.positions(request.namespace, list, limit, after, reverse),
        values: (keys) => db.values(request.namespace, keys).map(storedValue),
      },
      request,
    );
  } finally {
    db.end();
  }
}

runPageWorker(read, { oneAtATime: true });
