export { createOAuthRoutes } from './routes.js';
export { createFlowStore, stateTtlMs, type Flow, type FlowStore } from './flow.js';
export { createHookRegistry, type HookRegistry, type PostConnectionHook, type PostConnectionContext } from './hooks.js';
export type { OAuthDeps } from './deps.js';
export type { ConnectResult } from './result-page.js';
export { verifyCredentials } from './verify-credentials.js';
