import { createHash } from 'node:crypto';

/** A one-way digest of the parts; secrets go in, nothing readable comes out. */
export function fingerprint(...parts: (string | undefined)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part ?? '').update('\u0000');
  return hash.digest('base64url');
}
