import type { z } from 'zod';
import { fieldPath } from '../../../http/validate.js';
import { RecordValidationError } from '../../define/errors.js';

/** An error the runtime raises with a machine-readable code and the field at fault. */
export class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CodedError';
  }
}

export type Checked<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

/** Runs a zod schema (possibly from another zod copy) and names the first bad field. */
export function check<T>(schema: z.ZodType<T>, value: unknown, prefix = ''): Checked<T> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const inner = issue ? fieldPath(issue.path) : '';
  const field = prefix && inner ? `${prefix}.${inner}` : prefix || inner;
  return { ok: false, field, message: issue?.message ?? 'invalid value' };
}

/** JSON round trip: dates become strings, undefined fields go, as they will in the store. */
export const toJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const idOf = (value: unknown): string | number | undefined => {
  const id = (value as { id?: unknown } | null)?.id;
  return (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
};

/** Validates a `batchSave` batch against the model; the first bad record names its index and field. */
export function checkRecords(model: string, schema: z.ZodType, records: unknown): Record<string, unknown>[] {
  if (!Array.isArray(records)) throw new RecordValidationError(model, '', 'records must be an array');
  return records.map((record, index) => {
    const result = check(schema, record, `records[${index}]`);
    if (!result.ok) throw new RecordValidationError(model, result.field, result.message);
    if (idOf(result.value) === undefined)
      throw new RecordValidationError(model, `records[${index}].id`, 'a record needs a string or number id');
    return toJson(result.value as Record<string, unknown>);
  });
}

/** `batchUpdate`: each record is a partial of the model with its id. */
export function checkPartialRecords(model: string, schema: z.ZodType, records: unknown): Record<string, unknown>[] {
  if (!Array.isArray(records)) throw new RecordValidationError(model, '', 'records must be an array');
  const partial =
    typeof (schema as { partial?: unknown }).partial === 'function'
      ? (schema as unknown as { partial(): z.ZodType }).partial()
      : undefined;
  return records.map((record, index) => {
    if (idOf(record) === undefined)
      throw new RecordValidationError(model, `records[${index}].id`, 'a record needs a string or number id');
    if (!partial) return toJson(record as Record<string, unknown>);
    const result = check(partial, record, `records[${index}]`);
    if (!result.ok) throw new RecordValidationError(model, result.field, result.message);
    return toJson(result.value as Record<string, unknown>);
  });
}

/** `batchDelete`: only ids matter. */
export function checkIds(model: string, records: unknown): string[] {
  if (!Array.isArray(records)) throw new RecordValidationError(model, '', 'records must be an array');
  return records.map((record, index) => {
    const id = idOf(record);
    if (id === undefined)
      throw new RecordValidationError(model, `records[${index}].id`, 'a record needs a string or number id');
    return String(id);
  });
}
