import type { HttpContext } from './http/context.js';
import type { Logger } from './http/logger.js';

/**
 * Every error code the HTTP API can answer with, and its status.
 * Adding a code without a status does not compile.
 */
export const errorStatus = {
  invalid_body: 400,
  invalid_json: 400,
  invalid_request: 400,
  invalid_credentials: 400,
  invalid_scopes: 400,
  invalid_provider_config: 400,
  missing_header: 400,
  missing_connection_id: 400,
  missing_provider_config_key: 400,
  unsafe_proxy_target: 400,
  missing_connection_config: 400,
  invalid_connection_config: 400,
  // GET /records query parameters (lib/records): each code names its parameter.
  missing_model: 400,
  invalid_model: 400,
  invalid_variant: 400,
  invalid_cursor: 400,
  invalid_limit: 400,
  invalid_filter: 400,
  invalid_modified_after: 400,
  invalid_delta: 400,
  invalid_ids: 400,
  too_many_ids: 400,
  unknown_parameter: 400,
  // Connect sessions and authorization flows (lib/connect).
  invalid_state: 400,
  state_expired: 400,
  wrong_redirect: 400,
  unsupported_auth_mode: 400,
  authorization_failed: 400,
  invalid_connect_session: 401,
  unauthorized: 401,
  // Provider webhooks in (lib/webhooks/inbound).
  invalid_webhook_signature: 401,
  webhook_not_supported: 404,
  forbidden: 403,
  integration_not_allowed: 403,
  authorization_denied: 403,
  installation_pending: 403,
  installation_not_verified: 403,
  browser_mismatch: 403,
  tenant_not_proven: 403,
  not_found: 404,
  unknown_route: 404,
  unknown_provider: 404,
  unknown_integration: 404,
  unknown_connection: 404,
  method_not_allowed: 405,
  conflict: 409,
  state_replayed: 409,
  // Webhook re-sends (lib/webhooks).
  delivery_pending: 409,
  delivery_not_sendable: 409,
  delivery_expired: 410,
  unknown_delivery: 404,
  integration_exists: 409,
  endpoint_removed: 410,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  connection_refresh_failed: 424,
  integration_credentials_missing: 424,
  rate_limited: 429,
  server_error: 500,
  upstream_unreachable: 502,
  upstream_error: 502,
  upstream_response_too_large: 502,
  // Hostile or broken providers (lib/proxy): a decoded body past its cap, pages past their byte budget.
  upstream_decoded_too_large: 502,
  upstream_pages_too_large: 502,
  token_exchange_failed: 502,
  service_unavailable: 503,
  // The store (Redis, SQLite, …) did not answer in time or refused: retry shortly (lib/storage/guard.ts).
  store_unavailable: 503,
  connection_refresh_unavailable: 503,
  upstream_timeout: 504,
  // Scripts (lib/scripts): syncs, actions, deploys.
  invalid_action_input: 400,
  invalid_script: 400,
  unsupported_script_format: 400,
  deploys_disabled: 403,
  unknown_script: 404,
  unknown_action_run: 404,
  action_failed: 500,
  invalid_action_output: 500,
  // The script answered more than the API passes on: like a bad gateway answer, not a fault of ours.
  action_output_too_large: 502,
  script_memory_exceeded: 500,
  script_crashed: 500,
  script_interrupted: 503,
  script_timeout: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;

const brand = Symbol.for('portico.GatewayError');

/** An error whose code and message are safe to show to the caller. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly [brand] = true;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = details;
  }

  static is(value: unknown): value is GatewayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }
}

export function fail(code: ErrorCode, message: string, details?: Record<string, unknown>): never {
  throw new GatewayError(code, message, details);
}

export interface ErrorBody {
  error: { code: string; message: string } & Record<string, unknown>;
}

export function errorBody(code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  return { error: { code, message, ...details } };
}

/** Koa's own errors (body parser limits, http-errors thrown by the router) mapped onto our codes. */
function fromHttpError(err: { status?: number; expose?: boolean; message?: string }): GatewayError | undefined {
  switch (err.status) {
    case 404:
      return new GatewayError('unknown_route', 'No such route.');
    case 405:
      return new GatewayError('method_not_allowed', 'Method not allowed on this route.');
    case 413:
      return new GatewayError('payload_too_large', 'The request body is too large.');
    case 415:
      return new GatewayError('unsupported_media_type', 'Unsupported content type.');
    default:
      return undefined;
  }
}

/** Codes a caller should retry, and after how many seconds (sent as `Retry-After`). */
const retryAfterSeconds: Partial<Record<ErrorCode, number>> = {
  store_unavailable: 2,
};

/** Response header naming the code of an error the gateway itself answered with. */
export const errorCodeHeader = 'Portico-Error';

/** Answers a thrown error: the gateway's own with its code and status, anything else as `server_error` without internals. */
export function answerError(
  ctx: Pick<HttpContext, 'status' | 'set' | 'body' | 'state'>,
  err: unknown,
  logger: Logger,
): void {
  const known = GatewayError.is(err) ? err : fromHttpError(err as { status?: number });
  // Tells the gateway's own errors from a provider's answer passed through the proxy (the SDK reads it).
  if (known) {
    ctx.status = known.status;
    ctx.set(errorCodeHeader, known.code);
    const retryAfter = retryAfterSeconds[known.code];
    if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
    ctx.body = errorBody(known.code, known.message, known.details);
    return;
  }
  logger.error('unhandled error', {
    request_id: ctx.state.requestId,
    error: err instanceof Error ? err.message : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  ctx.status = 500;
  ctx.set(errorCodeHeader, 'server_error');
  ctx.body = errorBody('server_error', 'An internal error occurred.', { request_id: ctx.state.requestId });
}
