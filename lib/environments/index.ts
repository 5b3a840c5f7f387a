export type { Environment } from './environment.js';
export { validateEnvironments } from './environment.js';
export { createAuthenticate, createKeyMatcher, createSecretKeyAuth, type Authenticate, type KeyMatcher } from './secret-key-auth.js';
