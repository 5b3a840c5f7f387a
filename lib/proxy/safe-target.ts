import { fail } from '../errors.js';

/*
 * The provider path and query arrive raw (percent-encoding as the caller sent it) and leave
 * raw: the gateway never re-encodes them. What could make the provider — or any URL parser
 * on the way — see another host or a path outside the provider's base path is refused here.
 */

const unsafe = (message: string): never => fail('unsafe_proxy_target', message);

/*
 * What may not appear is said once, as a regular expression; `search` finds the first such
 * character, and only then is it named. A walk over `charCodeAt` on every call ran as generic
 * property loads (the path is a slice of the URL; callgrind, bench/README.md, session 11).
 */
/** Raw in a path: anything outside visible ASCII, `\`, `#`, `@`. */
const rawForbidden = /[^\x21-\x7e]|[\\#@]/;
/** Raw in a query: the same but `@`, which values may hold. */
const queryForbidden = /[^\x21-\x7e]|[\\#]/;
/** In a decoded path: control characters and `\`. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const decodedForbidden = /[\x00-\x1f\x7f\\]/;

/** The first character of `text` that `forbidden` matches, or undefined. */
function firstForbidden(text: string, forbidden: RegExp): number | undefined {
  const at = text.search(forbidden);
  return at === -1 ? undefined : text.charCodeAt(at);
}

/** What is wrong with a character `rawForbidden` or `queryForbidden` matched. */
function rawCharProblem(c: number): string {
  if (c === 0x5c) return 'backslashes are not allowed';
  if (c === 0x23) return '"#" is not allowed';
  if (c === 0x40) return 'a raw "@" is not allowed (send %40)';
  return 'control, space or non-ASCII characters must be percent-encoded';
}

/** A character that may not appear raw in the path: outside visible ASCII, or `\`, `#`, `@`. */
function rawPathProblem(path: string): string | undefined {
  const c = firstForbidden(path, rawForbidden);
  if (c !== undefined) return rawCharProblem(c);
  // `scheme:/` would be an absolute URL, and http-proxy rewrites `http:/` inside paths.
  if (path.includes(':/')) return '":/" is not allowed';
  return undefined;
}

const scheme = /^\/[A-Za-z][A-Za-z0-9+.-]*:/;

/** Checks one decoded form of the path for what moves a request: dot segments, `//`, `\`, controls. */
function decodedPathProblem(path: string): string | undefined {
  const c = firstForbidden(path, decodedForbidden);
  if (c !== undefined) return c === 0x5c ? 'backslashes are not allowed' : 'control characters are not allowed';
  if (scheme.test(path)) return 'absolute URLs are not allowed';
  // Segment by segment, without allocating: "." and ".." anywhere, and no empty segment but the last.
  let start = 1;
  for (let end = path.indexOf('/', start); ; end = path.indexOf('/', start)) {
    const stop = end === -1 ? path.length : end;
    const length = stop - start;
    if (length === 0 && end !== -1) return 'empty segments ("//") are not allowed';
    if ((length === 1 || length === 2) && path.charCodeAt(start) === 0x2e && path.charCodeAt(stop - 1) === 0x2e) {
      return 'dot segments (".", "..") are not allowed';
    }
    if (end === -1) return undefined;
    start = end + 1;
  }
}

const encodedByte = /%([0-9A-Fa-f]{2})/g;

/** One lenient decoding round: only well-formed `%XX` sequences, never throws. */
const decodeOnce = (value: string) =>
  value.replace(encodedByte, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/**
 * Returns the path unchanged when it is safe to append to the provider's base URL.
 * Percent-encoded forms are checked too, up to three decoding rounds (double encoding).
 */
export function checkProviderPath(path: string): string {
  if (!path.startsWith('/')) unsafe('The provider path must start with "/".');
  const raw = rawPathProblem(path);
  if (raw) unsafe(`Unsafe provider path: ${raw}.`);
  const plain = decodedPathProblem(path);
  if (plain) unsafe(`Unsafe provider path: ${plain}.`);
  if (!path.includes('%')) return path;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return unsafe('Unsafe provider path: malformed percent-encoding or invalid UTF-8.');
  }
  for (let round = 0; round < 3; round++) {
    const problem = decodedPathProblem(decoded);
    if (problem) unsafe(`Unsafe provider path (after percent-decoding): ${problem}.`);
    const next = decodeOnce(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return path;
}

const encodedControl = /%(?:[01][0-9A-Fa-f]|7[Ff])/;

/**
 * Returns the query string unchanged when it is safe. Values may hold anything a provider API
 * takes (URLs, `@`, dots); only what could split or redirect the request line is refused.
 */
export function checkProviderQuery(query: string): string {
  const c = firstForbidden(query, queryForbidden);
  if (c !== undefined) unsafe(`Unsafe query string: ${rawCharProblem(c)}.`);
  if (encodedControl.test(query)) unsafe('Unsafe query string: percent-encoded control characters are not allowed.');
  return query;
}
