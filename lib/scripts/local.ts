// A second, light door of the scripts feature: what running a script outside the gateway needs
// (the CLI's compile inspection and local dry-run). It leaves out the gateway side (worker pool,
// work queue, BullMQ), which `index.ts` pulls in and which would slow every CLI start.
export { execute as executeScriptTask, loadScript, manifestOf } from './runtime/worker/execute.js';
export type { Call as ScriptCall, Log as ScriptLog } from './runtime/worker/service.js';
export type { ActionOutput, RunContext, ScriptManifest, Task as ScriptTask } from './runtime/protocol.js';
export { serializeError } from './runtime/protocol.js';
export { legacyFormatMessage } from './registry/directory.js';
export { actionOutputLimitBytes } from './options.js';
export { isScript, type AnyScript } from './define/create.js';
export { createServiceCalls, type RunState, type ServicePorts, type SyncRunScope } from './run/service-calls.js';
export type { HostProxyRequest, HostProxyResponse, HostRecords } from './host.js';
