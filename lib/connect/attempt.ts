import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { EndUser } from '../connections/index.js';
import { GatewayError } from '../errors.js';
import type { FlowDeps } from './deps.js';
import { operationOf, type Flow } from './flow-store.js';
import { lookFor, type LookParts } from './look.js';
import { sendFailurePage } from './pages/result-page.js';

/** Who is trying to connect what: known once the session or the state has been read. */
export interface Attempt {
  environment: string;
  provider_config_key: string;
  provider: string;
  end_user: EndUser | null;
  connection_id: string | null;
  operation: 'oauth' | 'connect';
}

/** Filled in by a page route as it learns more; read when it fails. */
export interface PageScope {
  attempt?: Attempt;
  /** Where the result page may post its message (only once the starting browser is proven). */
  origin: string | null;
  /** The session token or state the attempt is stored under: its failure is reported once. */
  flowToken?: string;
  /** Session links: each distinct refusal before the session is spent is its own report (still once). */
  reportPerCode?: boolean;
  /** A replay or a stranger's request: logged, never reported to the customer again. */
  quiet?: boolean;
  /** The attempt's branding (the session's, over the integration's once known) and language. */
  branding?: LookParts['branding'];
  locale?: LookParts['locale'];
}

export const attemptOf = (flow: Flow): Attempt => ({
  environment: flow.environment,
  provider_config_key: flow.provider_config_key,
  provider: flow.provider,
  end_user: flow.end_user,
  connection_id: flow.connection_id,
  operation: operationOf(flow),
});

// Longer than any token or state is remembered (30 min + 1 h grace), so a marker outlives its flow.
const reportedForMs = 2 * 60 * 60_000;

/**
 * True the first time a failure of this flow is reported, across gateway processes: a lock
 * that is never released serves as the marker. Replaying a state cannot multiply webhooks.
 */
async function firstReport(deps: FlowDeps, token: string): Promise<boolean> {
  const key = `connect-failure-reported:${createHash('sha256').update(token).digest('base64url')}`;
  return (await deps.coordinator.tryLock(key, reportedForMs)) !== null;
}

/** Logs a failed attempt and, the first time for its flow, tells the customer (event → `auth` webhook). Nothing was stored. */
export async function notifyFailure(
  deps: FlowDeps,
  ctx: Context,
  scope: PageScope,
  error: GatewayError,
): Promise<void> {
  const providerError = error.details?.provider_error as { error: string; description: string } | undefined;
  const { attempt } = scope;
  const report =
    Boolean(attempt) &&
    !scope.quiet &&
    (scope.flowToken === undefined ||
      (await firstReport(deps, scope.reportPerCode ? `${scope.flowToken}:${error.code}` : scope.flowToken)));
  deps.logger.warn('authorization attempt failed', {
    request_id: ctx.state.requestId,
    code: error.code,
    reason: error.message,
    environment: attempt?.environment,
    provider_config_key: attempt?.provider_config_key,
    reported: report,
  });
  if (attempt && report) {
    await deps.events.publish({
      type: 'connection.auth_attempt_failed',
      ...attempt,
      code: error.code,
      message: error.message,
      ...(providerError ? { provider_error: providerError } : {}),
    });
  }
}

/** The failure as the customer (event) and the end user (page, message to the opener) see it. */
export async function reportFailure(
  deps: FlowDeps,
  ctx: Context,
  scope: PageScope,
  error: GatewayError,
): Promise<void> {
  await notifyFailure(deps, ctx, scope, error);
  const { attempt } = scope;
  const look = lookFor(
    deps,
    ctx,
    {
      branding: scope.branding,
      locale: scope.locale,
      provider: attempt?.provider,
      endUser: attempt?.end_user,
      providerConfigKey: attempt?.provider_config_key,
    },
    scope.quiet ? null : scope.origin,
  );
  sendFailurePage(ctx, look, error);
}

/** A route's context: Koa's, plus the router's path parameters. */
export type PageContext = Context & { params: Record<string, string | undefined> };

/**
 * A route that answers the end user's browser with a page: any failure becomes the failure
 * page plus a failed-authorization event, never the JSON envelope.
 */
export function pageRoute(deps: FlowDeps, handle: (ctx: PageContext, scope: PageScope) => Promise<void>): Middleware {
  return async (ctx) => {
    const scope: PageScope = { origin: null };
    try {
      await handle(ctx as PageContext, scope);
    } catch (err) {
      let error: GatewayError;
      if (GatewayError.is(err)) error = err;
      else {
        deps.logger.error('authorization route failed', {
          request_id: ctx.state.requestId,
          error: err instanceof Error ? err.message : String(err),
          stack: err instanceof Error ? err.stack : undefined,
        });
        error = new GatewayError(
          'server_error',
          `An internal error occurred (request ${String(ctx.state.requestId)}); nothing was stored. Please try again.`,
        );
      }
      await reportFailure(deps, ctx, scope, error);
    }
  };
}
