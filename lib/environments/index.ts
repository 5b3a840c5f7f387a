export type { Environment } from './environment.js';
export { validateEnvironments } from './environment.js';
export {
  createAuthenticate,
  createKeyMatcher,
  createSecretKeyAuth,
  deployRoute,
  type Authenticate,
  type KeyMatcher,
  type KeyRole,
} from './secret-key-auth.js';
