export type { Environment } from './environment.js';
export { validateEnvironments } from './environment.js';
export { createKeyMatcher, createSecretKeyAuth, type KeyMatcher } from './secret-key-auth.js';
