export {
  createConnectionService,
  sealedConnections,
  type ConnectionService,
  type ConnectionInput,
  type ConnectionFilter,
} from './service.js';
export { createConnectionRoutes, type VerifyImport } from './routes.js';
export { createRemovedConnectionRoutes } from './removed-routes.js';
export {
  publicConnection,
  type Connection,
  type ConnectionScope,
  type EndUser,
  type AuthProblem,
  type StoredConnection,
} from './connection.js';
export {
  connectionId,
  connectionConfigSchema,
  endUserSchema,
  importConnectionSchema,
  patchConnectionSchema,
} from './schema.js';
export {
  connectionCredentialsSchema,
  type ConnectionCredentials,
  type OAuth2Credentials,
  type AppCredentials,
} from './credentials.js';
