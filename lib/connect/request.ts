import type { Context } from 'koa';
import { GatewayError } from '../errors.js';
import type { Integration } from '../integrations/index.js';
import type { Provider } from '../providers/index.js';
import { attemptOf, type PageScope } from './attempt.js';
import { isStartingBrowser } from './browser-binding.js';
import type { FlowDeps } from './deps.js';
import type { Flow } from './flow-store.js';
import type { Claim } from './sessions/one-time-store.js';

/** The first value of a query parameter, if it is a non-empty string. */
export function queryValue(ctx: Context, name: string): string | undefined {
  const raw = ctx.query[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Where the result is posted: only ever an origin the customer's backend allowed on the
 * session. The link's `origin` (the SDK's page) only picks among them; it cannot add one.
 */
export function originFor(allowed: readonly string[], linkOrigin: string | undefined): string | null {
  if (linkOrigin !== undefined && allowed.includes(linkOrigin)) return linkOrigin;
  return allowed[0] ?? null;
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
export async function loadTarget(
  deps: FlowDeps,
  env: string,
  key: string,
): Promise<{ integration: Integration; provider: Provider }> {
  const integration = await deps.integrations.require(env, key);
  const provider = deps.catalog.get(integration.provider);
  if (!provider)
    throw new GatewayError(
      'unknown_provider',
      `Provider "${integration.provider}" of integration "${key}" is not in the catalog.`,
    );
  return { integration, provider };
}

const startAgain = 'Start again from the application.';

/**
 * Redeems a `state` once, and only from the browser that started the flow. Whatever the
 * outcome, the scope learns the attempt it belongs to, so a failure is reported to the right
 * customer, once; replays and strangers' requests are logged only and answered a plain page.
 */
export async function claimFlow(
  deps: FlowDeps,
  ctx: Context,
  state: string | undefined,
  scope: PageScope,
  kinds: readonly Flow['kind'][],
): Promise<Extract<Claim<Flow>, { ok: true }>> {
  if (!state)
    throw new GatewayError(
      'invalid_state',
      `The provider returned without a state: this authorization cannot be matched to a connect session. ${startAgain}`,
    );
  const peeked = await deps.flows.peek(state);
  if (!peeked)
    throw new GatewayError('invalid_state', `The state of this authorization is unknown or too old. ${startAgain}`);
  scope.attempt = attemptOf(peeked.value);
  scope.branding = peeked.value.branding;
  scope.locale = peeked.value.locale;
  scope.flowToken = state;
  if (peeked.used) {
    scope.quiet = true;
    deps.logger.warn('replayed authorization state', {
      request_id: ctx.state.requestId,
      environment: peeked.value.environment,
      provider_config_key: peeked.value.provider_config_key,
    });
    throw new GatewayError(
      'state_replayed',
      `This authorization response was already used; a state is valid once. ${startAgain}`,
    );
  }
  // Checked before the state is spent: a stranger's request must not burn the real user's flow.
  if (!isStartingBrowser(ctx, state, peeked.value)) {
    throw new GatewayError(
      'browser_mismatch',
      `This authorization was not started in this browser (its cookie is missing), so it cannot be finished here; nothing was created. ${startAgain}`,
    );
  }
  scope.origin = peeked.value.origin;
  const claim = await deps.flows.claim(state);
  if (!claim.ok) {
    if (claim.reason === 'expired')
      throw new GatewayError(
        'state_expired',
        `This authorization took longer than 10 minutes and expired. ${startAgain}`,
      );
    scope.quiet = true;
    if (claim.reason === 'used')
      throw new GatewayError(
        'state_replayed',
        `This authorization response was already used; a state is valid once. ${startAgain}`,
      );
    throw new GatewayError('invalid_state', `The state of this authorization is unknown or too old. ${startAgain}`);
  }
  if (!kinds.includes(claim.value.kind)) {
    await claim.finish();
    throw new GatewayError(
      'wrong_redirect',
      `This ${claim.value.kind.replace('_', ' ')} attempt returned to the wrong address (${endpointName(kinds)}). Check the callback and setup URLs registered at the provider.`,
    );
  }
  return claim;
}

const endpointName = (kinds: readonly Flow['kind'][]) =>
  kinds.includes('form')
    ? 'the connect form'
    : kinds.length === 1 && kinds[0] === 'app_install'
      ? 'the app setup URL'
      : 'the OAuth callback URL';
