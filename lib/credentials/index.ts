export { createCredentialResolver, type CredentialResolverDeps } from './create-resolver.js';
export type { AuthMaterial, CredentialResolver, CredentialTarget } from './resolver.js';
export { placeCredentials, type PlacementValues } from './placement.js';
export { credentialChannels, type RefreshEvent } from './diagnostics.js';
