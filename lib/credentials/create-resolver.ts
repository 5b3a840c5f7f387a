import type { Connection, ConnectionService } from '../connections/index.js';
import type { Provider } from '../providers/index.js';
import type { Coordinator } from '../coordination/index.js';
import { fail } from '../errors.js';
import type { Logger } from '../http/logger.js';
import { createAppJwtSigner } from './app-jwt.js';
import { createAppMode } from './app-mode.js';
import { createClientCredentialsMode } from './client-credentials-mode.js';
import { createOAuth2Mode } from './oauth2-mode.js';
import { placeCredentials } from './placement.js';
import type { AuthMaterial, CredentialResolver, CredentialTarget } from './resolver.js';
import { createTokenFlow } from './token-flow.js';
import type { TokenCredentials, TokenMode } from './token-mode.js';

export interface CredentialResolverDeps {
  connections: Pick<ConnectionService, 'reload' | 'updateCredentials' | 'markAuthProblem'>;
  /** Shares one refresh per connection between gateway processes (the storage's coordinator). */
  coordinator: Coordinator;
  logger: Logger;
  /** For token endpoints; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  now?: () => number;
  /** Renew OAuth tokens this long before they expire. Default 2 minutes. */
  refreshBufferMs?: number;
  /** Mint a new installation token this long before the current one expires. Default 5 minutes. */
  appTokenBufferMs?: number;
  /** Longest wait for a token endpoint. Default 10 s. */
  tokenTimeoutMs?: number;
  /** How long a refused exchange is answered from memory instead of asking again. Default 60 s. */
  refusalMemoryMs?: number;
}

/** Credentials the gateway only places (never obtains). */
function staticMaterial(target: CredentialTarget): AuthMaterial {
  const c = target.connection.credentials;
  switch (c.type) {
    case 'API_KEY':
      return placeCredentials(target.provider, { apiKey: c.apiKey });
    case 'BASIC':
      return placeCredentials(target.provider, {
        username: c.username,
        password: c.password,
        basic: Buffer.from(`${c.username}:${c.password}`).toString('base64'),
      });
    default:
      return { headers: {}, query: {} };
  }
}

/**
 * The credential resolver: static credentials are placed where the catalog says; OAuth
 * access tokens, client-credentials tokens and app installation tokens are renewed on the way.
 */
export function createCredentialResolver(deps: CredentialResolverDeps): CredentialResolver {
  const now = deps.now ?? Date.now;
  const fetchFn = deps.fetch ?? globalThis.fetch;
  const timeoutMs = deps.tokenTimeoutMs ?? 10_000;
  const refreshBufferMs = deps.refreshBufferMs ?? 2 * 60_000;
  const flow = createTokenFlow({
    connections: deps.connections,
    coordinator: deps.coordinator,
    logger: deps.logger,
    now,
    // Held across one token request at most; another process may take over only after that.
    lockTtlMs: 2 * timeoutMs + 10_000,
    refusalMemoryMs: deps.refusalMemoryMs ?? 60_000,
  });
  const oauth2 = createOAuth2Mode({ fetch: fetchFn, now, bufferMs: refreshBufferMs, timeoutMs });
  const clientCredentials = createClientCredentialsMode({ fetch: fetchFn, now, bufferMs: refreshBufferMs, timeoutMs });
  const app = createAppMode({
    fetch: fetchFn,
    now,
    signer: createAppJwtSigner({ now }),
    bufferMs: deps.appTokenBufferMs ?? 5 * 60_000,
    timeoutMs,
  });
  // The token each target was last given, so `forceRefresh` knows which token the provider refused.
  const handedOut = new WeakMap<CredentialTarget, string>();

  const withToken = async (target: CredentialTarget, token: Promise<string>): Promise<AuthMaterial> => {
    const accessToken = await token;
    handedOut.set(target, accessToken);
    return placeCredentials(target.provider, { accessToken });
  };

  /*
   * Placed material per connection object (a write replaces the object, a renewed token too),
   * with the token's expiry parsed once: the hot path neither fills templates nor parses dates.
   */
  interface Placed {
    provider: Provider;
    token: string | undefined;
    expiresAt: number;
    material: AuthMaterial;
  }
  const placed = new WeakMap<Connection, Placed>();
  const tokenModes = { OAUTH2: oauth2, OAUTH2_CC: clientCredentials, APP: app } as const;

  const place = (target: CredentialTarget): Placed | undefined => {
    const { connection, provider } = target;
    const c = connection.credentials;
    if (c.type !== provider.auth_mode && c.type !== 'NONE') return undefined;
    if (c.type === 'NONE' || c.type === 'API_KEY' || c.type === 'BASIC') {
      return { provider, token: undefined, expiresAt: Number.POSITIVE_INFINITY, material: staticMaterial(target) };
    }
    const mode = tokenModes[c.type] as TokenMode<TokenCredentials>;
    const token = mode.token(c);
    if (!token) return undefined;
    const expiresAt = mode.expiresAt(c);
    const expires = expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(expiresAt);
    return {
      provider,
      token,
      expiresAt: Number.isNaN(expires) ? 0 : expires - mode.bufferMs,
      material: placeCredentials(provider, { accessToken: token }),
    };
  };
  // A placement that fails (credentials unfit for a header) is `resolve`'s to report.
  const placeQuietly = (target: CredentialTarget): Placed | undefined => {
    try {
      return place(target);
    } catch {
      return undefined;
    }
  };

  return {
    peek(target) {
      let entry = placed.get(target.connection);
      if (!entry || entry.provider !== target.provider) {
        entry = placeQuietly(target);
        if (!entry) return undefined;
        placed.set(target.connection, entry);
      }
      return entry.expiresAt > now() ? entry.material : undefined;
    },
    async resolve(target, options = {}) {
      const c = target.connection.credentials;
      if (c.type !== target.provider.auth_mode && c.type !== 'NONE') {
        fail(
          'invalid_credentials',
          `Connection "${target.connection.connection_id}" holds ${c.type} credentials but provider "${target.provider.name}" uses ${target.provider.auth_mode}. Import the connection again.`,
        );
      }
      const tokenOptions = { force: options.forceRefresh === true, refused: handedOut.get(target) };
      switch (c.type) {
        case 'NONE':
        case 'API_KEY':
        case 'BASIC':
          return staticMaterial(target);
        case 'OAUTH2':
          return withToken(target, flow.token(oauth2, target, tokenOptions));
        case 'OAUTH2_CC':
          return withToken(target, flow.token(clientCredentials, target, tokenOptions));
        case 'APP':
          return withToken(target, flow.token(app, target, tokenOptions));
      }
    },
  };
}
