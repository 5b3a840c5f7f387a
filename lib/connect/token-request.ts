import type { Provider } from '../providers/index.js';

/** What a token endpoint answered; callers branch on it, nothing throws. */
export type TokenOutcome =
  | { ok: true; body: Record<string, unknown> }
  /** The provider refused (its `error` and `error_description`, surfaced to the customer). */
  | { ok: false; reason: 'refused'; status: number; error: string; description: string }
  /** Network error, timeout, 5xx or an unreadable answer. */
  | { ok: false; reason: 'unavailable'; detail: string };

export interface ClientCredentials {
  client_id: string;
  client_secret: string;
}

const timeoutMs = 15_000;
const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
const clip = (value: unknown) => (typeof value === 'string' ? value.slice(0, 300) : '');

function parseBody(text: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(text);
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? json as Record<string, unknown> : undefined;
  } catch {
    // A few providers answer form-encoded unless told otherwise.
    return /^[^=&\s]+=/.test(text) ? Object.fromEntries(new URLSearchParams(text)) : undefined;
  }
}

/**
 * POSTs a grant to the token URL, authenticating the client the way the catalog says
 * (form body by default, HTTP basic when `token_request_auth` is `basic`, RFC 6749 2.3.1).
 * Redirects are refused: following one would hand the client secret to another host.
 */
export async function requestToken(fetchFn: typeof fetch, provider: Provider, url: string, client: ClientCredentials, grant: Record<string, string>): Promise<TokenOutcome> {
  const basic = provider.token_request_auth === 'basic';
  const form = new URLSearchParams({ ...grant, ...(basic ? {} : { client_id: client.client_id, client_secret: client.client_secret }) });
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${formEncode(client.client_id)}:${formEncode(client.client_secret)}`).toString('base64')}`;
  let status: number;
  let text: string;
  try {
    const response = await fetchFn(url, { method: 'POST', headers, body: form.toString(), redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { ok: false, reason: 'unavailable', detail: timedOut ? `the token endpoint did not answer within ${timeoutMs / 1000} s` : 'the token endpoint could not be reached' };
  }
  const body = parseBody(text);
  if (status >= 500 || status === 429) return { ok: false, reason: 'unavailable', detail: `the token endpoint answered ${status}` };
  const error = typeof body?.error === 'string' ? body.error : undefined;
  if (status >= 400 || error !== undefined) {
    return { ok: false, reason: 'refused', status, error: error ?? `http_${status}`, description: clip(body?.error_description) || clip(body?.message) };
  }
  if (!body) return { ok: false, reason: 'unavailable', detail: `the token endpoint answered ${status} without a readable body` };
  return { ok: true, body };
}

/** `expires_in` (seconds, number or numeric string) as an ISO timestamp. */
export function expiresAt(value: unknown, now = Date.now()): string | undefined {
  const seconds = typeof value === 'string' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
    ? new Date(now + seconds * 1000).toISOString() : undefined;
}
