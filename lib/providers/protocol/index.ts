// The provider protocol's door: pure modules (no Node built-ins, no gateway code), imported by
// the gateway, the script runtime's bundle and the SDK alike.
export {
  blankPlaceholders,
  fillTemplate,
  hasPlaceholder,
  isSafeConfigValue,
  placeholderFor,
  placeholderNames,
  safeConfigValueRule,
  type FillResult,
} from './template.js';
export {
  basicClientAuthorization,
  callTokenEndpoint,
  expiresAtFrom,
  formEncode,
  isTransientStatus,
  oauthTokenRequest,
  readTokenAnswer,
  type ClientAuthMethod,
  type OAuthClientSecret,
  type TokenEndpointOutcome,
  type TokenRequest,
} from './token-endpoint.js';
export { valueAt, withValueAt } from './json-path.js';
export { linkWithRel } from './link-header.js';
export { cursorOf, firstOffset, nextLinkOf, nextOffset, type PaginationStyle } from './pagination.js';
