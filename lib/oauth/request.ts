import type { Context } from 'koa';
import { originSchema, type Claim } from '../connect/index.js';
import { GatewayError } from '../errors.js';
import type { Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';
import { attemptOf, type PageScope } from './attempt.js';
import type { OAuthDeps } from './deps.js';
import type { Flow } from './flow.js';

/** The first value of a query parameter, if it is a non-empty string. */
export function queryValue(ctx: Context, name: string): string | undefined {
  const raw = ctx.query[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Where the result is posted: the origin fixed in the session wins; otherwise the one the
 * frontend SDK put on the link (its own page's origin); otherwise nowhere.
 */
export function originFor(sessionOrigin: string | null, linkOrigin: string | undefined): string | null {
  if (sessionOrigin) return sessionOrigin;
  return linkOrigin !== undefined && originSchema.safeParse(linkOrigin).success ? linkOrigin : null;
}

/** `connection_config.NAME=value` pairs from a query string or a form. */
export function typedConfig(entries: Iterable<[string, unknown]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const raw = Array.isArray(value) ? value[0] : value;
    if (name.startsWith('connection_config.') && typeof raw === 'string' && raw.trim() !== '') {
      out[name.slice('connection_config.'.length)] = raw.trim();
    }
  }
  return out;
}

/** The integration and its catalog entry; errors name what is missing. */
export async function loadTarget(deps: OAuthDeps, env: string, key: string): Promise<{ integration: Integration; provider: Provider }> {
  const integration = await deps.integrations.require(env, key);
  const provider = deps.catalog.get(integration.provider);
  if (!provider) throw new GatewayError('unknown_provider', `Provider "${integration.provider}" of integration "${key}" is not in the catalog.`);
  return { integration, provider };
}

/**
 * Redeems a `state` once. Whatever the outcome, the scope learns the attempt it belongs to,
 * so an expired or replayed state is still reported to the right customer.
 */
export async function claimFlow(deps: OAuthDeps, state: string | undefined, scope: PageScope, kinds: readonly Flow['kind'][]): Promise<Extract<Claim<Flow>, { ok: true }>> {
  if (!state) throw new GatewayError('invalid_state', 'The provider returned without a state: this authorization cannot be matched to a connect session. Start again from the application.');
  const claim = await deps.flows.claim(state);
  if (claim.value) {
    scope.attempt = attemptOf(claim.value);
    scope.origin = claim.value.origin;
  }
  if (!claim.ok) {
    if (claim.reason === 'expired') throw new GatewayError('state_expired', 'This authorization took longer than 10 minutes and expired. Start again from the application.');
    if (claim.reason === 'used') throw new GatewayError('state_replayed', 'This authorization response was already used; a state is valid once. Start again from the application.');
    throw new GatewayError('invalid_state', 'The state of this authorization is unknown or too old. Start again from the application.');
  }
  if (!kinds.includes(claim.value.kind)) {
    await claim.finish();
    throw new GatewayError('wrong_redirect', `This ${claim.value.kind.replace('_', ' ')} attempt returned to the wrong address (${endpointName(kinds)}). Check the callback and setup URLs registered at the provider.`);
  }
  return claim;
}

const endpointName = (kinds: readonly Flow['kind'][]) =>
  kinds.includes('form') ? 'the connect form' : kinds.length === 1 && kinds[0] === 'app_install' ? 'the app setup URL' : 'the OAuth callback URL';
