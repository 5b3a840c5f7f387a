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

/**
 * The line's head up to the time, `{"level":"info","time":"<ISO>"`, made once per millisecond
 * (many lines share one) from a prefix made once per second: `toISOString` on every
 * millisecond was a visible share of the line's cost.
 */
let clockMs = -1;
let clockHead = '';
let secondStart = -1;
let secondIso = '';
function headNow(): string {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    const ms = now % 1000;
    if (now - ms !== secondStart) {
      secondStart = now - ms;
      // `YYYY-MM-DDTHH:MM:SS.` (what precedes the milliseconds in toISOString's answer).
      secondIso = new Date(secondStart).toISOString().slice(0, -4);
    }
    clockHead = `{"level":"info","time":"${secondIso}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
  }
  return clockHead;
}

/**
 * A string's JSON: quoted as it is when nothing in it needs escaping (ids, methods, paths, hosts
 * nearly always), else JSON.stringify's answer (which also escapes a lone surrogate). The scan
 * costs a fraction of JSON.stringify's call for these short strings.
 */
function stringJson(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(value);
  }
  return `"${value}"`;
}

function valueJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return stringJson(value);
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
  let line = headNow();
  for (const key in fields) {
    const json = valueJson(fields[key]);
    if (json !== undefined) line += keyPrefix(key) + json;
  }
  return `${line},"msg":"request"}\n`;
}
