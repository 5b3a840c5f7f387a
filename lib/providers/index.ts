export {
  createCatalog,
  readCatalogDir,
  parseProviders,
  CatalogError,
  builtInCatalogDir,
  type Catalog,
} from './catalog.js';
export {
  providerSchema,
  authModes,
  type Provider,
  type Paginate,
  type AuthMode,
  type CredentialPlacement,
} from './schema.js';
export { createProviderRoutes } from './routes.js';
export { createLogoRoutes } from './logo-routes.js';
export { createBrandIcons, type BrandIcons, type BrandIcon } from './brand-icons.js';
export { createLogos, type Logos, type Logo, type LogoSource } from './logos.js';
export { publishProvider, logoUrlOf, type PublishedProvider } from './publish.js';
export { fillConnectionTemplate } from './connection-template.js';
