import type { IncomingHttpHeaders } from 'node:http';

/** Methods a retry cannot turn into a second, different effect (RFC 9110 9.2.2). */
const idempotent = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export const isIdempotent = (method: string) => idempotent.has(method);

/** Throttling and server errors; 501 (not implemented) and 505 never change on their own. */
export const isRetryableStatus = (status: number) =>
  status === 429 || (status >= 500 && status !== 501 && status !== 505);

/**
 * Milliseconds to wait according to one header value: seconds (`Retry-After: 30`), an HTTP date,
 * or a rate-limit reset given as epoch seconds/milliseconds (`X-RateLimit-Reset: 1735689600`).
 */
export function waitFromValue(value: string, now: number): number | undefined {
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    if (n >= 1e12) return Math.max(0, n - now);
    if (n >= 1e9) return Math.max(0, n * 1000 - now);
    return n * 1000;
  }
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The first wait a provider announces: `Retry-After`, then the catalog's rate-limit reset headers. */
export function announcedWait(
  headers: IncomingHttpHeaders,
  names: readonly string[],
  now = Date.now(),
): number | undefined {
  for (const name of ['retry-after', ...names]) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined) continue;
    const wait = waitFromValue(value, now);
    if (wait !== undefined) return wait;
  }
  return undefined;
}

/** Exponential backoff with "equal jitter": between half and all of base·2^attempt, capped. */
export function backoff(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Sleeps, unless cancelled first; resolves false when cancelled. */
export function sleep(ms: number, cancel: { aborted: boolean; onAbort: (() => void) | undefined }): Promise<boolean> {
  if (cancel.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      cancel.onAbort = undefined;
      resolve(true);
    }, ms);
    cancel.onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
  });
}
