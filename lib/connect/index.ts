// The connect feature's one door: connect sessions and every end-user authorization flow.
export { createConnect, type Connect, type ConnectDeps } from './feature.js';
export {
  createHookRegistry,
  type HookRegistry,
  type PostConnectionHook,
  type PostConnectionContext,
} from './post-connection.js';
export { createSessionSchema, type CreateSessionInput } from './sessions/session.js';
export type { ConnectResult } from './pages/result-page.js';
export { verifyCredentials } from './flows/verify-credentials.js';
