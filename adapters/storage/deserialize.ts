/**
 * In the text Keyv's default serializer writes (compact JSON), a string that begins with ':'
 * (its escape for such strings, and its mark for Buffers) opens with `":` right after the start,
 * `{`, `[`, `,` or `:`. Text without that needs no reviver.
 */
export const escapedString = /(?:^|[{[,:])":/;

/** Keyv's escapes: `:base64:…` is a Buffer, any other leading ':' was doubled on the way in. */
function revive(_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith(':')) return value;
  return value.startsWith(':base64:') ? Buffer.from(value.slice(8), 'base64') : value.slice(1);
}

/**
 * Reads what Keyv's default serializer wrote, as its own deserializer does, but with a plain
 * `JSON.parse` when no string in the text can need unescaping: the reviver, called for every
 * value, was most of the cost of reading a page of records. Text that might hold one (a false
 * positive costs only speed) is revived.
 */
export function deserialize<T>(text: string): T {
  return (escapedString.test(text) ? JSON.parse(text, revive) : JSON.parse(text)) as T;
}

/** The value in Keyv's stored text (`{"value":…,"expires":…}`); undefined when absent or expired. */
export function storedValue(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  const entry = deserialize<{ value?: unknown; expires?: number | null }>(text);
  return typeof entry.expires === 'number' && entry.expires <= Date.now() ? undefined : entry.value;
}
