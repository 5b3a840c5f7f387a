import type { z } from 'zod';
import { fail, type ErrorCode } from '../errors.js';

/** Field path as a caller writes it: `credentials.access_token`, `ids[3]`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}

/** Parses `value` with `schema` or answers 400 naming the first bad field. */
export function parseOrFail<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode = 'invalid_body',
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue ? fieldPath(issue.path) : '';
  const message = issue?.message ?? 'invalid value';
  fail(code, field ? `${field}: ${message}` : message, field ? { field } : undefined);
}
