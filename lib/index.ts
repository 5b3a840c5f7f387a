export { createGateway, type Gateway, type GatewayOptions, type RouteInfo } from './gateway.js';
export { GatewayError, errorStatus, type ErrorCode } from './errors.js';
export type { Environment } from './environments/index.js';
export type { Storage } from './storage/index.js';
export type { Coordinator, Lease } from './coordination/index.js';
export type {
  WorkQueue,
  NewJob,
  ClaimedJob,
  JobOutcome,
  JobHandler,
  QueueCounts,
  QueueOptions,
} from './queue/index.js';
export { createLogger, type Logger, type LogLevel } from './http/logger.js';
export {
  accountExternalMemoryInHeapLimit,
  keepTickShape,
  settleHttpShapes,
  steadyHeapGrowth,
  tuneServerProcess,
} from './runtime/index.js';
export { createCatalog, providerSchema, type Provider } from './providers/index.js';
export type { Connection, ConnectionCredentials, EndUser } from './connections/index.js';
export type { Integration, IntegrationCredentials } from './integrations/index.js';
export type { GatewayEvent } from './events/index.js';
export type { ProxyOptions, ProxyRequest, ProxyResponse } from './proxy/index.js';
export type { PostConnectionHook, PostConnectionContext, ConnectResult } from './connect/index.js';
export type { CreateSessionInput } from './connect/index.js';
export type {
  DeleteResult,
  ListOptions,
  ListResult,
  PruneResult,
  PublicRecord,
  RecordFilter,
  RecordStore,
  RecordsPage,
  SaveResult,
  StreamRef,
  StreamStats,
} from './records/index.js';
export type {
  WebhookOptions,
  WebhookEventInput,
  WebhookPayload,
  WebhookEventType,
  DeliveryRecord,
  SendResult,
} from './webhooks/index.js';
export {
  createSync,
  createAction,
  createOnEvent,
  ActionError,
  ScriptRequestError,
  RecordValidationError,
  type SyncScript,
  type ActionScript,
  type OnEventScript,
  type ScriptService,
  type SyncService,
  type ActionService,
  type ProxyConfig,
  type PaginateConfig,
  type ScriptConnection,
  type ScriptsOptions,
  type ScriptModule,
  type ScriptJob,
} from './scripts/index.js';
export type { Metrics, MetricsOptions, TracingOptions } from './telemetry/index.js';
