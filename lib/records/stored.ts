import { encodeCursor } from './cursor.js';
import type { Stream } from './stream.js';

/** `last_action` as stored: one letter. */
export type Action = 'A' | 'U' | 'D';
export const actionName = { A: 'ADDED', U: 'UPDATED', D: 'DELETED' } as const satisfies Record<Action, string>;

/** A record's payload: the model's fields, `id` among them. */
export type RecordData = Record<string, unknown>;

/** One record as kept under its id key. Times are epoch ms. */
export interface StoredRecord {
  /** Sequence number of its latest change: its position in the change log and its cursor. */
  q: number;
  /** first_seen_at */
  f: number;
  /** last_modified_at */
  m: number;
  a: Action;
  /** deleted_at, or null. */
  x: number | null;
  /** pruned_at, or null. */
  p: number | null;
  /** When a save last included it (changed or not), for "delete what a full sync did not see". */
  s: number;
  /** The payload as JSON text; only `{"id":…}` once pruned. */
  d: string;
}

type Meta = [q: number, f: number, m: number, a: Action, x: number | null, p: number | null, s: number];

/**
 * Stored as `<metadata JSON array>\n<payload JSON>`. JSON text never holds a raw newline, so the
 * first one splits the two. Change detection compares payload text and maintenance reads only
 * the metadata, so neither parses a payload.
 */
export function encodeRecord(r: StoredRecord): string {
  const meta: Meta = [r.q, r.f, r.m, r.a, r.x, r.p, r.s];
  return `${JSON.stringify(meta)}\n${r.d}`;
}

export function decodeRecord(text: string): StoredRecord {
  const split = text.indexOf('\n');
  const [q, f, m, a, x, p, s] = JSON.parse(text.slice(0, split)) as Meta;
  return { q, f, m, a, x, p, s, d: text.slice(split + 1) };
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same content. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return canonicalJson((value as { toJSON(): unknown }).toJSON());
  let out = '{';
  for (const key of Object.keys(value).sort()) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner === undefined || typeof inner === 'function') continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(inner)}`;
  }
  return out + '}';
}

/**
 * Whether a save brings the same content as the stored payload. Equal text (the usual case: a
 * script builds its records the same way each run) needs no more work; otherwise key order is
 * ignored by comparing canonical forms.
 */
export function samePayload(storedText: string, data: RecordData, text: string): boolean {
  if (storedText === text) return true;
  if (storedText.length !== text.length) return false;
  return canonicalJson(JSON.parse(storedText)) === canonicalJson(data);
}

/** ISO 8601 with an explicit offset, as spec 2.2 asks: `2026-01-05T10:11:12.345+00:00`. */
export const isoWithOffset = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

/** The shape GET /records answers with (spec 2.2). */
export interface PublicRecord {
  [field: string]: unknown;
  _service_metadata: {
    deleted_at: string | null;
    last_action: (typeof actionName)[Action];
    first_seen_at: string;
    last_modified_at: string;
    cursor: string;
    pruned_at: string | null;
  };
}

export function toPublicRecord(stream: Stream, record: StoredRecord): PublicRecord {
  return {
    ...(JSON.parse(record.d) as RecordData),
    _service_metadata: {
      deleted_at: record.x === null ? null : isoWithOffset(record.x),
      last_action: actionName[record.a],
      first_seen_at: isoWithOffset(record.f),
      last_modified_at: isoWithOffset(record.m),
      cursor: encodeCursor(stream, record.q),
      pruned_at: record.p === null ? null : isoWithOffset(record.p),
    },
  };
}
