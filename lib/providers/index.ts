export { createCatalog, readCatalogDir, parseProviders, CatalogError, builtInCatalogDir, type Catalog } from './catalog.js';
export { providerSchema, authModes, type Provider, type Paginate, type AuthMode, type CredentialPlacement } from './schema.js';
export { createProviderRoutes } from './routes.js';
