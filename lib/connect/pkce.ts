import { createHash, randomBytes } from 'node:crypto';

/** RFC 7636 with S256: a 43-character verifier (32 random bytes) and its SHA-256 challenge. */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
