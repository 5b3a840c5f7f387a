import type { Context, Middleware } from 'koa';
import type { EndUser } from '../connections/index.js';
import { GatewayError } from '../errors.js';
import type { OAuthDeps } from './deps.js';
import { operationOf, type Flow } from './flow.js';
import { sendResultPage } from './result-page.js';

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
  /** Where the result page may post its message. */
  origin: string | null;
}

export const attemptOf = (flow: Flow): Attempt => ({
  environment: flow.environment,
  provider_config_key: flow.provider_config_key,
  provider: flow.provider,
  end_user: flow.end_user,
  connection_id: flow.connection_id,
  operation: operationOf(flow),
});

/** Logs a failed attempt and, when the attempt is known, tells the customer (event). Nothing was stored. */
export async function notifyFailure(deps: OAuthDeps, ctx: Context, scope: PageScope, error: GatewayError): Promise<void> {
  const providerError = error.details?.provider_error as { error: string; description: string } | undefined;
  const { attempt } = scope;
  deps.logger.warn('authorization attempt failed', {
    request_id: ctx.state.requestId,
    code: error.code,
    reason: error.message,
    environment: attempt?.environment,
    provider_config_key: attempt?.provider_config_key,
  });
  if (attempt) {
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
export async function reportFailure(deps: OAuthDeps, ctx: Context, scope: PageScope, error: GatewayError): Promise<void> {
  await notifyFailure(deps, ctx, scope, error);
  sendResultPage(ctx, {
    source: 'portico-connect',
    ok: false,
    error: { code: error.code, message: error.message },
    ...(scope.attempt ? { provider_config_key: scope.attempt.provider_config_key } : {}),
  }, scope.origin);
}

/** A route's context: Koa's, plus the router's path parameters. */
export type PageContext = Context & { params: Record<string, string | undefined> };

/**
 * A route that answers the end user's browser with a page: any failure becomes the failure
 * page plus a failed-authorization event, never the JSON envelope.
 */
export function pageRoute(deps: OAuthDeps, handle: (ctx: PageContext, scope: PageScope) => Promise<void>): Middleware {
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
        error = new GatewayError('server_error', `An internal error occurred (request ${String(ctx.state.requestId)}); nothing was stored. Please try again.`);
      }
      await reportFailure(deps, ctx, scope, error);
    }
  };
}
