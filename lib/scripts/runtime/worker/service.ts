import type { z } from 'zod';
import { isLogLevel, type LogLevel } from '../../../http/log-level.js';
import type { AnyScript } from '../../define/create.js';
import { RecordValidationError, ScriptRequestError } from '../../define/errors.js';
import type {
  BatchResult,
  PaginateConfig,
  ProxyConfig,
  ProxyResponse,
  ScriptConnection,
} from '../../define/service.js';
import { paginate } from '../paginate.js';
import type { RunContext } from '../protocol.js';
import { check, checkIds, checkPartialRecords, checkRecords, CodedError } from './validate.js';

/** Sends one service call to the main thread and waits for its answer. */
export type Call = (method: string, args: unknown[]) => Promise<unknown>;
export type Log = (level: LogLevel, message: string) => void;

const maxLogMessage = 64 * 1024;

/**
 * The `service` object a script receives, inside the worker. Every effect (proxied calls,
 * records, metadata, checkpoints) is a message to the main thread; validation against the
 * script's own schemas happens here, off the main thread.
 */
export function createWorkerService(
  script: AnyScript,
  context: RunContext,
  extra: { mode?: 'full' | 'incremental'; lastSyncDate?: string | null },
  call: Call,
  log: Log,
) {
  const metadataSchema = script.metadata as z.ZodType | undefined;

  const proxy = async <T>(config: ProxyConfig): Promise<ProxyResponse<T>> => {
    if (typeof config?.endpoint !== 'string') throw new TypeError('proxy: endpoint must be a path string');
    const response = (await call('proxy', [config])) as ProxyResponse<T>;
    if (response.status >= 400)
      throw new ScriptRequestError(response.status, response.data, response.headers, config.endpoint);
    return response;
  };
  const withMethod =
    (method: NonNullable<ProxyConfig['method']>) =>
    <T>(config: Omit<ProxyConfig, 'method'>) =>
      proxy<T>({ ...config, method });

  const base = {
    environment: context.environment,
    providerConfigKey: context.providerConfigKey,
    connectionId: context.connectionId,
    provider: context.provider,
    runId: context.runId,
    proxy,
    get: withMethod('GET'),
    post: withMethod('POST'),
    put: withMethod('PUT'),
    patch: withMethod('PATCH'),
    delete: withMethod('DELETE'),
    paginate<T>(config: ProxyConfig & { paginate?: PaginateConfig }) {
      const settings = config.paginate ?? context.paginate;
      if (!settings)
        throw new CodedError(
          'no_pagination',
          `paginate: provider "${context.provider}" has no pagination in the catalog; pass config.paginate`,
        );
      const { paginate: _ignored, ...request } = config;
      return paginate<T>(request, settings, context.baseUrl, (next) => proxy(next));
    },
    getConnection: () => call('getConnection', []) as Promise<ScriptConnection>,
    getMetadata: () => call('getMetadata', []) as Promise<Record<string, unknown>>,
    async setMetadata(metadata: Record<string, unknown>) {
      const value = metadataSchema ? checked(metadataSchema, metadata, 'metadata') : metadata;
      await call('setMetadata', [value, 'replace']);
    },
    async updateMetadata(metadata: Record<string, unknown>) {
      await call('setMetadata', [metadata, 'merge']);
    },
    async log(message: string, options?: { level?: string }) {
      const level = options?.level !== undefined && isLogLevel(options.level) ? options.level : 'info';
      log(level, String(message).slice(0, maxLogMessage));
    },
  };
  if (script.type !== 'sync') return base;

  const models = script.models as Record<string, z.ZodType>;
  const schemaOf = (model: string): z.ZodType => {
    const schema = Object.hasOwn(models, model) ? models[model] : undefined;
    if (!schema)
      throw new RecordValidationError(
        String(model),
        '',
        `not a model of this sync (models: ${Object.keys(models).join(', ')})`,
      );
    return schema;
  };
  const checkpointSchema = script.checkpoint as z.ZodType | undefined;
  return {
    ...base,
    mode: extra.mode ?? 'full',
    lastSyncDate: extra.lastSyncDate ? new Date(extra.lastSyncDate) : null,
    batchSave: async (records: unknown, model: string) =>
      call('batchSave', [model, checkRecords(model, schemaOf(model), records)]) as Promise<BatchResult>,
    batchUpdate: async (records: unknown, model: string) =>
      call('batchUpdate', [model, checkPartialRecords(model, schemaOf(model), records)]) as Promise<BatchResult>,
    batchDelete: async (records: unknown, model: string) => {
      schemaOf(model);
      return call('batchDelete', [model, checkIds(model, records)]) as Promise<BatchResult>;
    },
    getCheckpoint: () => call('getCheckpoint', []),
    async saveCheckpoint(checkpoint: unknown) {
      const value = checkpointSchema ? checked(checkpointSchema, checkpoint, 'checkpoint') : checkpoint;
      if (value === null || typeof value !== 'object') throw new TypeError('saveCheckpoint: a checkpoint is an object');
      await call('saveCheckpoint', [value]);
    },
  };
}

function checked(schema: z.ZodType, value: unknown, what: string): Record<string, unknown> {
  const result = check(schema, value, what);
  if (!result.ok) throw new CodedError(`invalid_${what}`, `${result.field}: ${result.message}`, result.field);
  return JSON.parse(JSON.stringify(result.value)) as Record<string, unknown>;
}
