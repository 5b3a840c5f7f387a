// The records feature's one door.
export {
  createRecordStore,
  DEFAULT_PAGE_LIMIT,
  MAX_IDS,
  MAX_PAGE_LIMIT,
  type CursorProblem,
  type ListOptions,
  type ListResult,
  type PruneResult,
  type RecordFilter,
  type RecordStore,
  type RecordStoreOptions,
  type StreamStats,
} from './store.js';
export { createRecordRoutes } from './routes.js';
export type { StreamRef } from './stream.js';
export type { DeleteResult, SaveResult } from './save.js';
export type { RecordsPage } from './reader.js';
export type { PublicRecord } from './stored.js';
export { recordChannels, type RecordsWrittenEvent } from './diagnostics.js';
