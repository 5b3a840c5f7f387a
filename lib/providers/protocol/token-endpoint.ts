/*
 * The one client of OAuth token endpoints: the code exchange, the refresh, the client
 * credentials grant and code-hosting app tokens all go through it, so they encode the client the
 * same way and read the answer the same way.
 */

/** What a call to a provider's token endpoint came to. Callers branch on it; nothing throws. */
export type TokenEndpointOutcome =
  | { ok: true; status: number; body: Record<string, unknown> }
  /** The provider said no for good (bad grant, bad client, unknown installation): do not retry as is. */
  | { ok: false; reason: 'refused'; status: number; error: string; description: string }
  /** Network error, timeout, 408, 429, 5xx or an unreadable answer: the credentials may still be fine. */
  | { ok: false; reason: 'unavailable'; status?: number; detail: string };

export interface TokenRequest {
  url: string;
  headers: Record<string, string>;
  /** Sent as `application/x-www-form-urlencoded`; without it the POST has no body. */
  form?: Record<string, string>;
  timeoutMs: number;
}

export interface OAuthClientSecret {
  client_id: string;
  client_secret: string;
}

/** How the catalog says the client authenticates: in the form body (default) or HTTP basic. */
export type ClientAuthMethod = 'body' | 'basic' | undefined;

/**
 * application/x-www-form-urlencoded encoding of one value (the WHATWG serializer: space as `+`,
 * everything but `*-._` and alphanumerics percent-encoded, `!'()~` included).
 */
export const formEncode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);

/**
 * The `Authorization` value for HTTP basic client authentication. RFC 6749 2.3.1: the client id
 * and secret are form-encoded first, then joined by `:` and base64-encoded. The encoded text is
 * ASCII, so `btoa` is exact and this module needs no Node built-in.
 */
export const basicClientAuthorization = (client: OAuthClientSecret): string =>
  `Basic ${btoa(`${formEncode(client.client_id)}:${formEncode(client.client_secret)}`)}`;

/**
 * A grant to a token URL: `extras` (the catalog's `token_params`), then the grant's own fields,
 * and the client in the body or in an HTTP basic header.
 */
export function oauthTokenRequest(input: {
  url: string;
  client: OAuthClientSecret;
  auth: ClientAuthMethod;
  grant: Record<string, string>;
  extras?: Record<string, string>;
  timeoutMs: number;
}): TokenRequest {
  const form: Record<string, string> = { ...input.extras, ...input.grant };
  const headers: Record<string, string> = {};
  if (input.auth === 'basic') {
    headers.authorization = basicClientAuthorization(input.client);
  } else {
    form.client_id = input.client.client_id;
    form.client_secret = input.client.client_secret;
  }
  return { url: input.url, headers, form, timeoutMs: input.timeoutMs };
}

/** Reads a token answer: JSON, or the form encoding some providers still send. */
function parseBody(text: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(text);
    return typeof json === 'object' && json !== null && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : undefined;
  } catch {
    if (!/^[^=&\s]+=/.test(text)) return undefined;
    return Object.fromEntries(new URLSearchParams(text));
  }
}

const clip = (value: unknown) => (typeof value === 'string' ? value.slice(0, 300) : '');

/** Statuses that say "not now" rather than "no": the same request may succeed later. */
export const isTransientStatus = (status: number): boolean => status >= 500 || status === 429 || status === 408;

/** Classifies a token endpoint's answer (exported for the table test; callers use `callTokenEndpoint`). */
export function readTokenAnswer(status: number, text: string): TokenEndpointOutcome {
  const body = parseBody(text);
  if (isTransientStatus(status))
    return { ok: false, reason: 'unavailable', status, detail: `the token endpoint answered ${status}` };
  const error = typeof body?.error === 'string' ? body.error : undefined;
  if (status >= 400 || error !== undefined) {
    // Some providers answer 200 with an `error` field; any other 4xx is final for these credentials.
    return {
      ok: false,
      reason: 'refused',
      status,
      error: error ?? `http_${status}`,
      description: clip(body?.error_description) || clip(body?.message),
    };
  }
  if (status < 200 || status >= 300 || !body) {
    return {
      ok: false,
      reason: 'unavailable',
      status,
      detail: `the token endpoint answered ${status} without a readable body`,
    };
  }
  return { ok: true, status, body };
}

/**
 * POSTs to a token endpoint and classifies the answer. Redirects are refused: following one
 * would hand the client secret or the app's JWT to whatever host the redirect names.
 */
export async function callTokenEndpoint(fetchFn: typeof fetch, request: TokenRequest): Promise<TokenEndpointOutcome> {
  let status: number;
  let text: string;
  try {
    const response = await fetchFn(request.url, {
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
    status = response.status;
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return {
      ok: false,
      reason: 'unavailable',
      detail: timedOut
        ? `the token endpoint gave no answer within ${request.timeoutMs} ms`
        : 'the token endpoint could not be reached',
    };
  }
  return readTokenAnswer(status, text);
}

/** `expires_in` (seconds, number or numeric string) as an ISO timestamp; undefined when absent. */
export function expiresAtFrom(expiresIn: unknown, now: number): string | undefined {
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  return new Date(now + seconds * 1000).toISOString();
}
