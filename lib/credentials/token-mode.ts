import type { ConnectionCredentials } from '../connections/index.js';
import type { CredentialTarget } from './resolver.js';
import type { TokenEndpointOutcome } from '../providers/protocol/index.js';

/** Connection credentials that carry a token the gateway obtains itself. */
export type TokenCredentials = Extract<ConnectionCredentials, { type: 'OAUTH2' | 'OAUTH2_CC' | 'APP' }>;

export type ObtainOutcome<C> = { ok: true; credentials: C } | Exclude<TokenEndpointOutcome, { ok: true }>;

/**
 * What differs between the token-bearing auth modes; the shared flow (expiry, single flight,
 * locking, storing, refusals) lives in `token-flow.ts`.
 */
export interface TokenMode<C extends TokenCredentials> {
  type: C['type'];
  /** Stored on the connection when the provider refuses (`auth_problem.code`). */
  problemCode: string;
  /** Obtain a new token this long before `expires_at`. */
  bufferMs: number;
  token(credentials: C): string | undefined;
  expiresAt(credentials: C): string | undefined;
  /** Why no new token can be obtained at all (e.g. no refresh token); undefined when one can. */
  cannotObtain?(credentials: C): string | undefined;
  /** Identifies everything a refused exchange depended on: any change makes it worth trying again. */
  fingerprint(target: CredentialTarget, credentials: C): string;
  /** Asks the provider for a new token. Throws only for gateway-side problems (missing configuration). */
  obtain(target: CredentialTarget, credentials: C): Promise<ObtainOutcome<C>>;
  /** The caller-facing sentence for a refusal. */
  refusalMessage(target: CredentialTarget, outcome: Extract<TokenEndpointOutcome, { reason: 'refused' }>): string;
}
