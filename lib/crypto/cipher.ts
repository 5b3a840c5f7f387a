import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A 32-byte AES key with the id written into every box it seals, so keys can rotate. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface Cipher {
  /** Seals a JSON value: `v1.<key id>.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(value: unknown): string;
  open<T = unknown>(box: string): T;
  /** True when the box was sealed under an older key and should be sealed again. */
  isStale(box: string): boolean;
}

const idPattern = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * AES-256-GCM sealing. The first key seals; every key opens, so old data stays readable
 * while it is re-sealed under the new key.
 */
export function createCipher(keys: readonly EncryptionKey[]): Cipher {
  const [current] = keys;
  if (!current) throw new Error('at least one encryption key is required');
  const byId = new Map<string, Buffer>();
  for (const { id, key } of keys) {
    if (!idPattern.test(id)) throw new Error(`encryption key id "${id}" must match ${idPattern}`);
    if (key.length !== 32) throw new Error(`encryption key "${id}" must be 32 bytes, got ${key.length}`);
    byId.set(id, key);
  }
  return {
    seal(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(current.id));
      const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'));
      return ['v1', current.id, ...parts].join('.');
    },
    open<T>(box: string): T {
      const [version, id, iv, tag, data] = box.split('.');
      const key = id === undefined ? undefined : byId.get(id);
      if (version !== 'v1' || !key || iv === undefined || tag === undefined || data === undefined) {
        throw new Error('sealed value is malformed or its key is unknown');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(id as string));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as T;
    },
    isStale(box) {
      return box.split('.', 2)[1] !== current.id;
    },
  };
}

/** Parses `SERVICE_ENCRYPTION_KEY`: base64 of 32 bytes, optionally `id:base64`, comma-separated for rotation. */
export function parseEncryptionKeys(text: string): EncryptionKey[] {
  return text.split(',').map((part, index) => {
    const trimmed = part.trim();
    const colon = trimmed.indexOf(':');
    const id = colon > 0 ? trimmed.slice(0, colon) : index === 0 ? 'k1' : `k${index + 1}`;
    const key = Buffer.from(colon > 0 ? trimmed.slice(colon + 1) : trimmed, 'base64');
    return { id, key };
  });
}
