import type { Storage } from '../../storage/index.js';
import { createOneTimeStore, type Claim, type Peeked } from './one-time-store.js';
import { endUserOf, type ConnectSession, type CreateSessionInput } from './session.js';

export interface ConnectSessionStore {
  create(env: string, input: CreateSessionInput): Promise<{ token: string; session: ConnectSession }>;
  /** Reads a session without spending it (the integration chooser page). */
  peek(token: string): Promise<Peeked<ConnectSession> | undefined>;
  /** Spends the session: one authorization attempt per token. */
  claim(token: string): Promise<Claim<ConnectSession>>;
}

export const defaultSessionTtlMs = 30 * 60_000;

export function createConnectSessionStore(storage: Storage, ttlMs = defaultSessionTtlMs): ConnectSessionStore {
  const store = createOneTimeStore<ConnectSession>(storage, {
    name: 'connect-sessions',
    prefix: 'cst_',
    ttlMs,
    graceMs: 60 * 60_000,
  });
  return {
    async create(env, input) {
      const now = Date.now();
      const session: ConnectSession = {
        environment: env,
        end_user: endUserOf(input),
        allowed_integrations: input.allowed_integrations ? [...new Set(input.allowed_integrations)] : null,
        integrations_config_defaults: Object.fromEntries(
          Object.entries(input.integrations_config_defaults ?? {}).map(([key, value]) => [
            key,
            value.connection_config,
          ]),
        ),
        allowed_origins: [...new Set([...(input.allowed_origins ?? []), ...(input.origin ? [input.origin] : [])])],
        tenant: input.tenant ?? null,
        connection_id: input.connection_id ?? null,
        branding: input.branding ?? null,
        locale: input.locale ?? null,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + ttlMs).toISOString(),
      };
      const { token } = await store.issue(session);
      return { token, session };
    },
    peek: (token) => store.peek(token),
    claim: (token) => store.claim(token),
  };
}
