const actionErrorBrand = Symbol.for('portico.ActionError');

/**
 * Thrown by an action to fail with a payload the caller receives as is
 * (`error.payload` of the `action_failed` answer). Branded with `Symbol.for`, so it is
 * recognised even when the script bundles its own copy of this package.
 */
export class ActionError<Payload = Record<string, unknown>> extends Error {
  readonly payload: Payload;
  readonly [actionErrorBrand] = true;

  constructor(payload: Payload, message = 'The action failed.') {
    super(message);
    this.name = 'ActionError';
    this.payload = payload;
  }

  static is(value: unknown): value is ActionError<unknown> {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[actionErrorBrand] === true;
  }
}

/** A provider answered a script's proxied request with status 400 or more (after retries). */
export class ScriptRequestError extends Error {
  readonly status: number;
  readonly data: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, data: unknown, headers: Record<string, string>, endpoint: string) {
    super(`the provider answered ${status} to ${endpoint}`);
    this.name = 'ScriptRequestError';
    this.status = status;
    this.data = data;
    this.headers = headers;
  }
}

/** A record handed to `batchSave`/`batchUpdate`/`batchDelete` does not fit its model's schema. */
export class RecordValidationError extends Error {
  readonly code = 'invalid_record';
  readonly model: string;
  readonly field: string;

  constructor(model: string, field: string, message: string) {
    super(`${model}: ${field ? `${field}: ` : ''}${message}`);
    this.name = 'RecordValidationError';
    this.model = model;
    this.field = field;
  }
}
