/** What a call to a provider's token endpoint came to. Callers branch on it; nothing throws. */
export type TokenEndpointOutcome =
  | { ok: true; status: number; body: Record<string, unknown> }
  /** The provider said no for good (bad grant, bad client, unknown installation): do not retry as is. */
  | { ok: false; reason: 'refused'; status: number; error: string; description: string }
  /** Network error, timeout, 5xx, 429 or an unreadable answer: the credentials may still be fine. */
  | { ok: false; reason: 'unavailable'; status?: number; detail: string };

export interface TokenRequest {
  url: string;
  headers: Record<string, string>;
  /** Sent as `application/x-www-form-urlencoded`; without it the POST has no body. */
  form?: Record<string, string>;
  timeoutMs: number;
}

/** Reads a token answer: JSON, or the form encoding some providers still send. */
function parseBody(text: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(text);
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? json as Record<string, unknown> : undefined;
  } catch {
    if (!/^[^=&\s]+=/.test(text)) return undefined;
    return Object.fromEntries(new URLSearchParams(text));
  }
}

const clip = (value: unknown, max = 200) => (typeof value === 'string' ? value.slice(0, max) : '');

/**
 * POSTs to a token endpoint and classifies the answer. Redirects are refused: following one
 * would hand the client secret or the app's JWT to whatever host the redirect names.
 */
export async function callTokenEndpoint(fetchFn: typeof fetch, request: TokenRequest): Promise<TokenEndpointOutcome> {
  let response: Response;
  let text: string;
  try {
    response = await fetchFn(request.url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...request.headers,
      },
      ...(request.form ? { body: new URLSearchParams(request.form).toString() } : {}),
      redirect: 'error',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { ok: false, reason: 'unavailable', detail: timedOut ? `no answer within ${request.timeoutMs} ms` : 'the token endpoint could not be reached' };
  }
  const { status } = response;
  const body = parseBody(text);
  const error = typeof body?.error === 'string' ? body.error : undefined;
  if (status >= 500 || status === 429 || status === 408) {
    return { ok: false, reason: 'unavailable', status, detail: `the token endpoint answered ${status}` };
  }
  if (status >= 400 || error !== undefined) {
    // Some providers answer 200 with an `error` field; any 4xx is final for these credentials.
    return {
      ok: false, reason: 'refused', status,
      error: error ?? `http_${status}`,
      description: clip(body?.error_description) || clip(body?.message),
    };
  }
  if (status < 200 || status >= 300 || !body) {
    return { ok: false, reason: 'unavailable', status, detail: `the token endpoint answered ${status} without a readable body` };
  }
  return { ok: true, status, body };
}
