// What script authors import (re-exported by the package's main entry).
export {
  createSync,
  createAction,
  createOnEvent,
  isScript,
  scriptBrand,
  scriptEvents,
  type SyncScript,
  type ActionScript,
  type OnEventScript,
  type AnyScript,
  type ModelSchema,
  type ScriptEvent,
  type SyncDefinition,
  type ActionDefinition,
  type OnEventDefinition,
} from './create.js';
export { ActionError, ScriptRequestError, RecordValidationError } from './errors.js';
export { parseFrequency, describeMs, defaultMinimumFrequencyMs } from './frequency.js';
export type {
  ScriptService,
  SyncService,
  ActionService,
  ProxyConfig,
  ProxyResponse,
  PaginateConfig,
  ScriptConnection,
  LogOptions,
  BatchResult,
} from './service.js';
