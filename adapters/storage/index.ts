// The storage back ends' one door: everything outside this folder imports from here.
export { createMemoryStorage } from './memory.js';
export { createMemoryCoordinator } from './memory-coordinator.js';
export { createSqliteStorage, KeyvBetterSqlite, SqliteKeyvTable } from './sqlite.js';
export { chooseSqliteDriver, type SqliteDriver } from './sqlite-driver.js';
export { createRedisStorage, createRedisCoordinator, type RedisClient, type RedisStorageOptions } from './redis.js';
export {
  createPostgresStorage,
  createPostgresCoordinator,
  KeyvPostgresStore,
  type PostgresStorageOptions,
  type StatisticsOptions,
} from './postgres/index.js';
export { storageFromUrl, parseStorageUrl, type StorageLog, type StorageSpec } from './from-url.js';
export { createKeyvQueue, type KeyvQueueOptions } from './queue/keyv-queue.js';
export { createBullmqQueue, type BullmqQueueOptions } from './queue/bullmq-queue.js';
