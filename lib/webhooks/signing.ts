import { createHash, createHmac } from 'node:crypto';

/** Spec 5.2: the header to verify with. */
export const hmacHeader = 'X-Service-Hmac-Sha256';
/** Spec 5.2: legacy, still sent, no deprecation date. */
export const legacySignatureHeader = 'X-Service-Signature';

/**
 * The two signature headers of one webhook body (spec 5.2). The body is signed as the exact
 * UTF-8 bytes that are sent:
 * - `X-Service-Hmac-Sha256`: lowercase hex of HMAC-SHA256(key = signing key, message = body);
 * - `X-Service-Signature`: lowercase hex of SHA-256(signing key bytes followed by body bytes).
 */
export function signatureHeaders(body: Buffer, signingKey: string): Record<string, string> {
  return {
    [hmacHeader]: createHmac('sha256', signingKey).update(body).digest('hex'),
    [legacySignatureHeader]: createHash('sha256').update(signingKey, 'utf8').update(body).digest('hex'),
  };
}
