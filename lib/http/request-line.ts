/**
 * The request log line's JSON, written straight into the logger's destination: the same shape
 * pino writes (`{"level":"info","time":"<ISO>",…fields,"msg":"request"}`), for a flat record of
 * strings, numbers and nulls the gateway builds itself (never a secret: ids, method, path,
 * statuses, timings). pino's general serializer looks up serializers and stringifiers per
 * key and escapes every key on every line; for this one known shape that was about half of the
 * request line's cost, measured in the proxy's process (docs/bench.md).
 */

/**
 * The line's head up to the time, `{"level":"info","time":"<ISO>"`, made once per millisecond
 * (many lines share one) from a prefix made once per second: `toISOString` on every
 * millisecond was a visible share of the line's cost.
 */
let clockMs = -1;
let clockHead = '';
let secondStart = -1;
let secondIso = '';
function headAt(now: number): string {
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

/** A character JSON must escape: a control character, a quote, a backslash, a surrogate (a lone one is escaped). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
const needsEscape = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * A string's JSON: quoted as it is when nothing in it needs escaping (ids, methods, paths, hosts
 * nearly always), else JSON.stringify's answer (which also escapes a lone surrogate). Tested by
 * a regular expression, not a loop over `charCodeAt`: the line's strings come in many of V8's
 * string representations (sliced from the URL, joined, internalized), and the loop's reads of
 * `length` and `charCodeAt` became generic property loads, most of the line's cost (callgrind,
 * bench/README.md, session 10).
 */
function stringJson(value: string): string {
  return needsEscape.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** What a caller put in a field that is not of its type (null, say), as JSON.stringify writes it. */
const otherJson = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** A text field's JSON. */
function text(value: unknown): string {
  return typeof value === 'string' ? stringJson(value) : otherJson(value);
}

/**
 * A number field's JSON: `null` for NaN and the infinities, as JSON.stringify writes them. The
 * gateway's timings are rounded to hundredths of a millisecond: such a number is written from its
 * whole count of hundredths, which V8 turns into text from a cache, where `String` of a fraction
 * runs the general shortest-decimal conversion (a third of the request line's cost, perf on the
 * standalone server, session 14). The two agree: a decimal of at most 15 significant digits is
 * the shortest text that reads back as its double, which is what `String` writes.
 */
function number(value: unknown): string {
  if (typeof value !== 'number') return otherJson(value);
  // Zero only for a finite number (NaN and ±Infinity give NaN).
  if (value - value !== 0) return 'null';
  const hundredths = Math.round(value * 100);
  if (hundredths / 100 !== value || hundredths >= 1e15 || hundredths <= -1e15) return String(value);
  const whole = hundredths < 0 ? -hundredths : hundredths;
  const cents = whole % 100;
  // A whole number (or zero, −0 included): String's own answer, from the cache for small ones.
  if (cents === 0) return String(hundredths / 100);
  const units = `${hundredths < 0 ? '-' : ''}${(whole - cents) / 100}`;
  return cents < 10 ? `${units}.0${cents}` : cents % 10 === 0 ? `${units}.${cents / 10}` : `${units}.${cents}`;
}

/**
 * What the proxy notes of a proxied call for its request line (lib/proxy/routes.ts sets it on
 * `ctx.state.upstream`, lib/http/edge.ts reads it): which connection, which provider host, what
 * it answered and how long it took to answer (headers).
 */
export interface UpstreamFields {
  integration: string;
  connection: string;
  provider_host: string;
  provider_status: number | null;
  upstream_ms: number | null;
}

/**
 * The request line's fields, in the order they are written: what the edge knows of every request,
 * then, for a proxied call, its upstream fields.
 */
export type RequestFields = {
  request_id?: string | undefined;
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  duration_ms?: number | undefined;
  environment?: string | undefined;
} & { [K in keyof UpstreamFields]?: UpstreamFields[K] | undefined };

/**
 * One request line, newline included, stamped with `at` (epoch milliseconds: when the request
 * ended); `undefined` fields are left out, as pino leaves them out.
 * The field names are written as literals, one after the other: walking the record's keys (as
 * a general serializer must) and looking up each key's JSON cost about as much again as the
 * values, measured in instructions per proxied call with callgrind (bench/README.md, session 10).
 */
export function requestLine(f: RequestFields, at: number = Date.now()): string {
  let line = headAt(at);
  if (f.request_id !== undefined) line += ',"request_id":' + text(f.request_id);
  if (f.method !== undefined) line += ',"method":' + text(f.method);
  if (f.path !== undefined) line += ',"path":' + text(f.path);
  if (f.status !== undefined) line += ',"status":' + number(f.status);
  if (f.duration_ms !== undefined) line += ',"duration_ms":' + number(f.duration_ms);
  if (f.environment !== undefined) line += ',"environment":' + text(f.environment);
  if (f.integration !== undefined) line += ',"integration":' + text(f.integration);
  if (f.connection !== undefined) line += ',"connection":' + text(f.connection);
  if (f.provider_host !== undefined) line += ',"provider_host":' + text(f.provider_host);
  if (f.provider_status !== undefined) line += ',"provider_status":' + number(f.provider_status);
  if (f.upstream_ms !== undefined) line += ',"upstream_ms":' + number(f.upstream_ms);
  return `${line},"msg":"request"}\n`;
}
