export { createConnectSessionStore, defaultSessionTtlMs, type ConnectSessionStore } from './session-store.js';
export { createConnectSessionRoutes, type ConnectSessionRoutesDeps } from './routes.js';
export { createSessionSchema, originSchema, type ConnectSession, type CreateSessionInput } from './session.js';
export { createOneTimeStore, type OneTimeStore, type Claim, type Peeked } from './one-time-store.js';
