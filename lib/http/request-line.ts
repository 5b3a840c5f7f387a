/**
 * The request log line's JSON, written straight into the logger's destination: the same shape
 * pino writes (`{"level":"info","time":"<ISO>",…fields,"msg":"request"}`), for a flat record of
 * strings, numbers, booleans and nulls the gateway builds itself (never a secret: ids, method,
 * path, statuses, timings). pino's general serializer looks up serializers and stringifiers per
 * key and escapes every key on every line; for this one known shape that was about half of the
 * request line's cost, measured in the proxy's process (docs/bench.md).
 */

/** `,"key":` per field name seen, bounded (the gateway uses about a dozen names). */
const keyPrefixes = new Map<string, string>();
const maxKeys = 256;

function keyPrefix(key: string): string {
  let prefix = keyPrefixes.get(key);
  if (prefix === undefined) {
    prefix = `,${JSON.stringify(key)}:`;
    if (keyPrefixes.size < maxKeys) keyPrefixes.set(key, prefix);
  }
  return prefix;
}

/** The ISO time of the current millisecond, made once per millisecond (many lines share one). */
let clockMs = 0;
let clockIso = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    clockIso = new Date(now).toISOString();
  }
  return clockIso;
}

function valueJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      // null, or a nested value a custom caller passed: plain JSON (the gateway's own are flat).
      return JSON.stringify(value) ?? undefined;
  }
}

/** One request line, newline included; `undefined` values are left out, as pino does. */
export function requestLine(fields: Record<string, unknown>): string {
  let line = `{"level":"info","time":"${isoNow()}"`;
  for (const key in fields) {
    const json = valueJson(fields[key]);
    if (json !== undefined) line += keyPrefix(key) + json;
  }
  return `${line},"msg":"request"}\n`;
}
