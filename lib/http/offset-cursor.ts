import { fail } from '../errors.js';

/** An opaque cursor over a position in a list, bound to the list it came from. */
export function encodeOffsetCursor(offset: number, list: string): string {
  return Buffer.from(JSON.stringify({ l: list, o: offset })).toString('base64url');
}

export function decodeOffsetCursor(cursor: string, list: string): number {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { l?: unknown; o?: unknown };
    if (value.l === list && Number.isSafeInteger(value.o) && (value.o as number) >= 0) return value.o as number;
  } catch {
    // fall through to the error below
  }
  fail('invalid_request', 'cursor: not a cursor this endpoint issued.', { field: 'cursor' });
}
