const brand = Symbol.for('portico.PorticoError');

/**
 * Every failure the client reports: a gateway error (its `code` is the API's error code), a
 * provider's non-2xx answer to a proxied call (`provider_error`), or no answer (`network_error`).
 * Branded with `Symbol.for`, so `PorticoError.is()` holds across two installed copies.
 */
export class PorticoError extends Error {
  /** The API's snake_case error code, `provider_error` or `network_error`. */
  readonly code: string;
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The rest of the error body (e.g. `field`, `header`, `request_id`). */
  readonly details: Record<string, unknown>;
  /** For `provider_error`: the provider's answer as the proxy passed it on. */
  readonly response: { headers: Headers; data: unknown } | undefined;
  readonly [brand] = true;

  constructor(init: {
    code: string;
    status: number;
    message: string;
    details?: Record<string, unknown>;
    response?: { headers: Headers; data: unknown };
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PorticoError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? {};
    this.response = init.response;
  }

  static is(value: unknown): value is PorticoError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }
}

/** The gateway's envelope `{"error":{"code","message",…}}`, or undefined when the body is something else. */
export function envelopeOf(
  body: unknown,
): { code: string; message: string; details: Record<string, unknown> } | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, ...details } = error as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { code, message, details };
}
