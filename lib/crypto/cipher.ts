import { createCipheriv, createDecipheriv, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';

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
  // Key objects made once: given raw bytes, every seal and open imports the key again.
  const byId = new Map<string, KeyObject>();
  for (const { id, key } of keys) {
    if (!idPattern.test(id)) throw new Error(`encryption key id "${id}" must match ${idPattern}`);
    if (key.length !== 32) throw new Error(`encryption key "${id}" must be 32 bytes, got ${key.length}`);
    byId.set(id, createSecretKey(key));
  }
  const sealKey = createSecretKey(current.key);
  const sealAad = Buffer.from(current.id);
  const ivs = randomIvs();
  return {
    seal(value) {
      const iv = ivs();
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      cipher.setAAD(sealAad);
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

/**
 * Fresh random 12-byte IVs, drawn from the system's generator 256 at a time (a call per IV cost
 * as much as the sealing). Each IV is its own copy, and no IV is handed out twice.
 */
function randomIvs(): () => Buffer {
  const pool = Buffer.alloc(12 * 256);
  let at = pool.length;
  return () => {
    if (at === pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    const iv = Buffer.from(pool.subarray(at, at + 12));
    at += 12;
    return iv;
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
