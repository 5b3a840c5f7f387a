import { workerData } from 'node:worker_threads';
import { collectPage, type PageRequest } from '../../../lib/storage/page-reader.js';
import { createRedisOrderedIndexes } from '../ordered/redis.js';
import { runPageWorker } from '../page-worker/runner.js';
import { createRedisClient } from '../redis-client.js';
import { redisPageSource } from './source.js';

/** What the Redis page reader's worker is started with (index.ts): the storage's own client settings. */
export interface RedisWorkerData {
  url: string;
  prefix: string;
  commandTimeoutMs?: number | undefined;
  maxQueuedCommands?: number | undefined;
}

const { prefix, ...clientOptions } = workerData as RedisWorkerData;
// Errors while Redis is away fail the reads under way (each answered with its message); the
// client reconnects by itself.
const client = createRedisClient({ ...clientOptions, onError: () => undefined });
// Reads sent before the connection is up wait in the client's offline queue (bounded in time).
client.connect().catch(() => undefined);
const index = createRedisOrderedIndexes(client, prefix);

const read = (request: PageRequest) => collectPage(redisPageSource(client, index, prefix, request.namespace), request);

runPageWorker(read, { oneAtATime: false });
