export {
  createIntegrationService,
  sealedIntegrations,
  type IntegrationService,
  type IntegrationInput,
  type IntegrationUpdate,
} from './service.js';
export { createIntegrationRoutes } from './routes.js';
export { publicIntegration, maskSecret, type Integration, type IntegrationUrls } from './integration.js';
export {
  integrationCredentialsSchema,
  uniqueKey,
  createIntegrationSchema,
  updateIntegrationSchema,
  type IntegrationCredentials,
} from './schema.js';
export { defaultScopeConflict, normalizeScopes } from './scopes.js';
export { brandingSchema, isHexColour, type Branding } from './branding.js';
