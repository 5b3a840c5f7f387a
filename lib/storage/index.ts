export type { IndexEntry, ListedWrite, Storage, StorageInventory } from './storage.js';
export { inOrder } from './in-order.js';
export { valueWrite, writeInOrder } from './listed-writes.js';
export { allList, createCollection, type Collection, type CollectionOptions } from './collection.js';
export { createReadCache, defaultCacheGraceMs, type ReadCache } from './read-cache.js';
export { observeStorage, storageChannels, type StorageErrorEvent } from './diagnostics.js';
export { keyedEntryId, splitKeyedEntry, withinPrefix, type KeyedEntry, type KeyedHit } from './keyed-list.js';
export { comparePositions, createOrderClock, type IndexPosition, type OrderedIndex } from './ordered-index.js';
export {
  guardStorage,
  isStoreUnavailable,
  logStoreFailures,
  defaultStoreTimeoutMs,
  type StoreGuardOptions,
} from './guard.js';
export { copyStore, holdsData, type CopyProgress, type CopyReport } from './copy.js';
export {
  collectPage,
  loadView,
  type PageReader,
  type PageRequest,
  type PageSource,
  type PageText,
  type ValueView,
} from './page-reader.js';
