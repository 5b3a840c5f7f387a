import { escapedString } from './deserialize.js';

/** A Buffer as `JSON.stringify` writes it: Keyv's serializer writes `:base64:…` instead. */
const bufferJson = '{"type":"Buffer","data":[';

/** Keyv's escapes (see deserialize.ts): a Buffer as `:base64:…`, a leading ':' of a string value doubled. */
function escape(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (Buffer.isBuffer(raw)) return `:base64:${raw.toString('base64')}`;
  return typeof value === 'string' && value.startsWith(':') ? `:${value}` : value;
}

/**
 * Writes the text Keyv's default serializer writes (compact JSON with its escapes), natively:
 * Keyv's walks every value in JavaScript, a measurable part of each write. Only text that may
 * hold a colon-led string or a Buffer (a false positive costs only speed) is written again with
 * the escapes.
 */
export function serialize(data: unknown): string {
  const text = JSON.stringify(data);
  if (text === undefined) return 'null';
  return escapedString.test(text) || text.includes(bufferJson) ? JSON.stringify(data, escape) : text;
}
