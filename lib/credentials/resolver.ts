import type { Connection } from '../connections/index.js';
import type { Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';

/** What the proxy attaches to one outgoing request. */
export interface AuthMaterial {
  headers: Record<string, string>;
  query: Record<string, string>;
}

export interface CredentialTarget {
  environment: string;
  integration: Integration;
  connection: Connection;
  provider: Provider;
}

/**
 * Turns a connection's stored credentials into request material, refreshing or minting
 * tokens when they are about to expire (or when `forceRefresh` says the provider refused them).
 * Throws `GatewayError('connection_refresh_failed')` when the provider refuses a refresh.
 */
export interface CredentialResolver {
  resolve(target: CredentialTarget, options?: { forceRefresh?: boolean }): Promise<AuthMaterial>;
  /**
   * The material at once when nothing has to be obtained (static credentials, a token that is
   * not close to expiry); undefined sends the caller to `resolve`. It never obtains, stores or
   * throws, and answers what `resolve` would.
   */
  peek?(target: CredentialTarget): AuthMaterial | undefined;
}
