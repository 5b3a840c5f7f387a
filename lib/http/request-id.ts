import { randomBytes } from 'node:crypto';

/**
 * Request ids: a random prefix drawn once per process, then a counter (`3f9c…-1a`). Unique
 * across processes and restarts (64 random bits per process), and cheap: no entropy is drawn
 * per request. An id names a request in logs; it is not a secret and not meant to be unguessable.
 */
export function createRequestIds(): () => string {
  const prefix = randomBytes(8).toString('hex');
  let counter = 0;
  return () => `${prefix}-${(++counter).toString(36)}`;
}
