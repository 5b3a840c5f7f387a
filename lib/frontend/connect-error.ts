const brand = Symbol.for('portico.ConnectError');

/**
 * Why `connect()` did not produce a connection. `code` is stable: the gateway's error codes
 * (`authorization_denied`, `state_expired`, `token_exchange_failed`, …) or the SDK's own
 * (`popup_blocked`, `window_closed`, `aborted`), or `cancelled` when the end user pressed Cancel on a connect page.
 */
export class ConnectError extends Error {
  readonly code: string;
  readonly providerConfigKey: string | undefined;
  readonly [brand] = true;

  constructor(code: string, message: string, providerConfigKey?: string) {
    super(message);
    this.name = 'ConnectError';
    this.code = code;
    this.providerConfigKey = providerConfigKey;
  }

  /** True for a ConnectError from any copy of this library loaded on the page. */
  static is(value: unknown): value is ConnectError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }
}
