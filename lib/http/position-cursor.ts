import { fail } from '../errors.js';
import type { IndexPosition } from '../storage/index.js';

/** An opaque cursor over a position in an ordered list, bound to the list it came from. */
export function encodePositionCursor(position: IndexPosition, list: string): string {
  return Buffer.from(JSON.stringify({ l: list, o: position.order, i: position.id })).toString('base64url');
}

export function decodePositionCursor(cursor: string, list: string): IndexPosition {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      l?: unknown;
      o?: unknown;
      i?: unknown;
    };
    if (value.l === list && typeof value.o === 'number' && Number.isFinite(value.o) && typeof value.i === 'string') {
      return { order: value.o, id: value.i };
    }
  } catch {
    // fall through to the error below
  }
  fail('invalid_request', 'cursor: not a cursor this endpoint issued.', { field: 'cursor' });
}
