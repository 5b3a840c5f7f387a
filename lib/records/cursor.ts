import { timingSafeEqual } from 'node:crypto';
import type { Stream } from './stream.js';

const VERSION = 1;
// version (1) + stream tag (8) + sequence number (6, big-endian: up to 2^48 changes per stream)
const LENGTH = 15;

export type CursorResult = { ok: true; seq: number } | { ok: false; reason: 'undecodable' | 'foreign' };

/**
 * A position in a stream's change log: the sequence number of one change, which no other change
 * of the stream shares (two records saved in the same millisecond still have distinct cursors).
 * The stream's tag travels inside, so a cursor of another model, connection, integration or
 * environment is refused rather than silently misread. Opaque base64url (RFC 4648 §5).
 */
export function encodeCursor(stream: Stream, seq: number): string {
  const bytes = Buffer.alloc(LENGTH);
  bytes[0] = VERSION;
  stream.tag.copy(bytes, 1);
  bytes.writeUIntBE(seq, 9, 6);
  return bytes.toString('base64url');
}

export function decodeCursor(stream: Stream, text: string): CursorResult {
  // Standard base64 is accepted too; a `+` that a form decoder turned into a space is restored.
  const normalized = text.trim().replace(/ /g, '+');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(normalized)) return { ok: false, reason: 'undecodable' };
  const bytes = Buffer.from(normalized, 'base64url');
  if (bytes.length !== LENGTH || bytes[0] !== VERSION) return { ok: false, reason: 'undecodable' };
  if (!timingSafeEqual(bytes.subarray(1, 9), stream.tag)) return { ok: false, reason: 'foreign' };
  return { ok: true, seq: bytes.readUIntBE(9, 6) };
}
