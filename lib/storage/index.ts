export type { Storage } from './storage.js';
export { createCollection, type Collection } from './collection.js';
export { createReadCache, defaultCacheGraceMs, type ReadCache } from './read-cache.js';
export { guardStorage, isStoreUnavailable, logStoreFailures, defaultStoreTimeoutMs, type StoreGuardOptions } from './guard.js';
