// The scripts feature's one door.
export { createScripts, type Scripts, type ScriptsApi, type ScriptsDeps } from './feature.js';
export { createGatewayHost, type GatewayHostDeps } from './gateway-host.js';
export { createScriptHooks, type NamedScriptRunner } from './hooks.js';
export type { ScriptHost, HostRecords, HostProxyRequest, HostProxyResponse, ScriptEventInput } from './host.js';
export { resolveScriptsOptions, actionOutputLimitBytes, type ScriptsOptions } from './options.js';
export { parseStoredLevel, defaultStoredLevel } from './logs/levels.js';
export type { ScriptModule, ScriptEntry } from './registry/registry.js';
export { legacyFormatMessage, readScriptsDirectory } from './registry/directory.js';
export type { ScriptJob } from './schedule/jobs.js';
export type { SyncStatus } from './api/sync-api.js';
export type { RunInfo } from './state/sync-state.js';
export type { ActionRun } from './state/action-runs.js';
export { scriptChannels, type ScriptRunEvent } from './diagnostics.js';
export { triggerSyncSchema, syncSelectionSchema, triggerActionSchema, deploySchema } from './routes/index.js';
export * from './define/index.js';
