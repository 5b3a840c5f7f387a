import { createHmac, timingSafeEqual } from 'node:crypto';

/** Request headers as Node (`req.headers`), Express, or the Fetch API (`Headers`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const headerName = 'x-service-hmac-sha256';

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * True when a webhook from the gateway is genuine: its `X-Service-Hmac-Sha256` header is the hex
 * HMAC-SHA256 of the raw body under the environment's webhook signing key. Pass the body exactly
 * as received (before any JSON parsing). The comparison takes the same time wherever it differs.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  signingKey: string,
): boolean {
  const presented = readHeader(headers, headerName)?.trim();
  if (!presented || !/^[0-9a-f]{64}$/i.test(presented) || !signingKey) return false;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const expected = createHmac('sha256', signingKey).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(presented, 'hex'));
}
