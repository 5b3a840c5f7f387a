import type { ConnectionService } from '../connections/index.js';
import { LockTimeoutError, type Coordinator } from '../coordination/index.js';
import { fail } from '../errors.js';
import type { Logger } from '../http/logger.js';
import { createRefusalMemory } from './refusal-memory.js';
import type { CredentialTarget } from './resolver.js';
import type { TokenCredentials, TokenMode } from './token-mode.js';
import { refreshEnded, refreshStarted } from './diagnostics.js';

export interface TokenFlowDeps {
  connections: Pick<ConnectionService, 'reload' | 'updateCredentials' | 'markAuthProblem'>;
  coordinator: Coordinator;
  logger: Logger;
  now: () => number;
  /** How long the cross-process lock is held at most; longer than a token request can take. */
  lockTtlMs: number;
  /** How long a refused exchange is answered from memory. */
  refusalMemoryMs: number;
}

export interface TokenOptions {
  force: boolean;
  /** The token the caller sent and the provider refused, when known. */
  refused?: string | undefined;
}

/**
 * The life of a gateway-obtained token: use it while it is fresh; otherwise one refresh per
 * connection at a time — shared by concurrent callers in this process (a promise map) and
 * across processes (the coordinator's lock, after which the connection is read again from the
 * store, so a process that waited uses the token another one just stored).
 */
export function createTokenFlow(deps: TokenFlowDeps) {
  const flights = new Map<string, Promise<TokenCredentials>>();
  const refusals = createRefusalMemory({ ttlMs: deps.refusalMemoryMs, now: deps.now });

  const fresh = <C extends TokenCredentials>(mode: TokenMode<C>, c: C, marginMs: number): boolean => {
    if (!mode.token(c)) return false;
    const expiresAt = mode.expiresAt(c);
    return expiresAt === undefined || Date.parse(expiresAt) - deps.now() > marginMs;
  };

  async function exchange<C extends TokenCredentials>(
    mode: TokenMode<C>,
    target: CredentialTarget,
    options: TokenOptions,
    refused: string | undefined,
  ): Promise<C> {
    const { environment: env } = target;
    const { provider_config_key: pck, connection_id: cid } = target.connection;
    const reloaded = await deps.connections.reload(env, pck, cid);
    if (!reloaded) fail('unknown_connection', `No connection "${cid}" under integration "${pck}".`);
    const current = reloaded.credentials as C;
    if (current.type !== mode.type)
      fail('invalid_credentials', `Connection "${cid}" now holds ${current.type} credentials; try again.`);
    const stillGood = options.force
      ? mode.token(current) !== refused && fresh(mode, current, 0)
      : fresh(mode, current, mode.bufferMs);
    if (stillGood) return current;

    const latest: CredentialTarget = { ...target, connection: reloaded };
    const event = refreshStarted({
      environment: env,
      providerConfigKey: pck,
      connectionId: cid,
      provider: target.provider.name,
      authMode: mode.type,
    });
    let outcome: Awaited<ReturnType<typeof mode.obtain>>;
    try {
      outcome = await mode.obtain(latest, current);
    } catch (error) {
      refreshEnded(event, 'error');
      throw error;
    }
    refreshEnded(event, outcome.ok ? 'renewed' : outcome.reason === 'refused' ? 'refused' : 'unavailable');
    const where = {
      environment: env,
      provider_config_key: pck,
      connection_id: cid,
      provider: target.provider.name,
      auth_mode: mode.type,
    };
    if (outcome.ok) {
      // Stored (sealed) before anyone uses it: a rotated refresh token must never be lost.
      await deps.connections.updateCredentials(env, pck, cid, outcome.credentials);
      deps.logger.info('connection token renewed', {
        ...where,
        expires_at: mode.expiresAt(outcome.credentials) ?? null,
      });
      return outcome.credentials;
    }
    if (outcome.reason === 'refused') {
      const message = mode.refusalMessage(latest, outcome);
      refusals.remember(mode.fingerprint(latest, current), message);
      deps.logger.warn('provider refused a token request', {
        ...where,
        status: outcome.status,
        provider_error: outcome.error,
      });
      if (reloaded.auth_problem?.code !== mode.problemCode || reloaded.auth_problem.message !== message) {
        await deps.connections.markAuthProblem(env, pck, cid, { code: mode.problemCode, message });
      }
      fail('connection_refresh_failed', message, { provider_error: outcome.error });
    }
    deps.logger.warn('token endpoint unavailable', {
      ...where,
      status: outcome.status ?? null,
      detail: outcome.detail,
    });
    // The stored token is not expired yet (only inside the buffer): better used than refused.
    if (!options.force && fresh(mode, current, 0)) return current;
    fail(
      'connection_refresh_unavailable',
      `Could not renew the token of connection "${cid}": ${outcome.detail}. The connection is unchanged; try again.`,
      { retryable: true },
    );
  }

  function locked<C extends TokenCredentials>(
    mode: TokenMode<C>,
    target: CredentialTarget,
    options: TokenOptions,
    refused: string | undefined,
  ): Promise<C> {
    const { environment: env } = target;
    const { provider_config_key: pck, connection_id: cid } = target.connection;
    return deps.coordinator
      .withLock(`credentials:${env}:${pck}\u001e${cid}`, () => exchange(mode, target, options, refused), {
        ttlMs: deps.lockTtlMs,
        waitMs: deps.lockTtlMs + 5_000,
      })
      .catch((error: unknown) => {
        if (error instanceof LockTimeoutError) {
          fail(
            'connection_refresh_unavailable',
            `Another process is still renewing the token of connection "${cid}"; try again.`,
            { retryable: true },
          );
        }
        throw error;
      });
  }

  return {
    /** A usable token for the target's connection, obtaining a new one when needed. */
    async token<C extends TokenCredentials>(
      mode: TokenMode<C>,
      target: CredentialTarget,
      options: TokenOptions,
    ): Promise<string> {
      const current = target.connection.credentials as C;
      if (!options.force && fresh(mode, current, mode.bufferMs)) return mode.token(current) as string;
      const blocked = mode.cannotObtain?.(current);
      if (blocked !== undefined) {
        // Nothing can be renewed: a token that has not expired is still worth sending.
        const token = mode.token(current);
        if (token && (options.force || fresh(mode, current, 0))) return token;
        fail('connection_refresh_failed', blocked);
      }
      const remembered = refusals.recall(mode.fingerprint(target, current));
      if (remembered !== undefined) fail('connection_refresh_failed', remembered);

      const key = `${target.environment}\u001e${target.connection.provider_config_key}\u001e${target.connection.connection_id}`;
      let flight = flights.get(key);
      if (!flight) {
        const refused = options.refused ?? mode.token(current);
        flight = locked(mode, target, options, refused).finally(() => flights.delete(key));
        flights.set(key, flight);
      }
      const renewed = (await flight) as C;
      return mode.token(renewed) as string;
    },
  };
}

export type TokenFlow = ReturnType<typeof createTokenFlow>;
