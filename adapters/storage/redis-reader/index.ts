import { collectPage, type OrderedIndex, type PageRequest } from '../../../lib/storage/index.js';
import { siblingWorker } from '../../../lib/worker-thread.js';
import { createWorkerPageReader, type PageReaderLimits, type WorkerPageReader } from '../page-worker/reader.js';
import type { RedisClient } from '../redis-client.js';
import { redisPageSource } from './source.js';
import type { RedisWorkerData } from './worker.js';

export { valueNamespace } from './source.js';

export interface RedisPageReaderOptions extends PageReaderLimits, Omit<RedisWorkerData, 'prefix'> {
  /** Every key of the storage lives under it. */
  prefix: string;
  /** The storage's own client and indexes: pages are read through them until the worker is ready. */
  client: RedisClient;
  index: (namespace: string) => OrderedIndex;
}

const worker = siblingWorker(import.meta.url, 'worker');

/**
 * Redis's listing pages read on a worker thread (page-worker/reader.ts) with a client of its own
 * on the same Redis and prefix, as bounded as the storage's (redis-client.ts): a ZRANGE, an
 * MGET, the parse of each value and the answer's JSON happen there. A page reads what Redis
 * holds when its commands run, as the storage's own reads do.
 */
export function createRedisPageReader(options: RedisPageReaderOptions): WorkerPageReader {
  const { client, index, url, prefix, commandTimeoutMs, maxQueuedCommands, ...limits } = options;
  const inProcess = (request: PageRequest) =>
    collectPage(redisPageSource(client, index, prefix, request.namespace), request);
  const workerData: RedisWorkerData = { url, prefix, commandTimeoutMs, maxQueuedCommands };
  return createWorkerPageReader({ ...limits, worker, workerData, inProcess });
}
