import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from '../../storage/index.js';

interface Entry<T> {
  value: T;
  /** Epoch ms after which the token no longer works (it is kept a while longer to explain why). */
  expires_at: number;
  used: boolean;
}

export type Peeked<T> = { value: T; expired: boolean; used: boolean };

/** The outcome of redeeming a token; callers branch on it. */
export type Claim<T> =
  | {
      ok: true;
      value: T;
      /** Gives the token back (a failed attempt the user may retry, e.g. a mistyped API key). */
      release(): Promise<void>;
      /** Keeps the token spent (the default: a claimed token is spent unless released). */
      finish(): Promise<void>;
    }
  | { ok: false; reason: 'unknown' | 'expired' | 'used'; value?: T };

export interface OneTimeStore<T> {
  issue(value: T): Promise<{ token: string; expiresAt: Date }>;
  peek(token: string): Promise<Peeked<T> | undefined>;
  /** At most one caller wins, across processes sharing the storage, even under a race. */
  claim(token: string): Promise<Claim<T>>;
}

export interface OneTimeStoreOptions {
  /** Keyv namespace and lock prefix. */
  name: string;
  /** Prefix of issued tokens, so a leaked one can be recognised (`cst_`, `st_`). */
  prefix: string;
  ttlMs: number;
  /** How long a spent or expired token is remembered, to report "expired" or "used" instead of "unknown". */
  graceMs: number;
}

const lockTtlMs = 10_000;

/**
 * Unguessable single-use tokens with expiry, stored under their SHA-256 so a storage dump
 * holds no usable token. Keyv has no atomic operations: a claim marks the token used under
 * a coordinator lock (in-process, or Redis for several gateway processes).
 */
export function createOneTimeStore<T>(storage: Storage, options: OneTimeStoreOptions): OneTimeStore<T> {
  const entries = storage.keyv<Entry<T>>(options.name);
  const keyOf = (token: string) => createHash('sha256').update(token).digest('base64url');
  const read = async (key: string) => (await entries.get(key)) ?? undefined;
  // Re-writes keep the original expiry plus the grace period.
  const write = (key: string, entry: Entry<T>) =>
    entries.set(key, entry, Math.max(1, entry.expires_at + options.graceMs - Date.now())).then(() => undefined);

  return {
    async issue(value) {
      const token = options.prefix + randomBytes(32).toString('base64url');
      const expiresAt = Date.now() + options.ttlMs;
      await entries.set(keyOf(token), { value, expires_at: expiresAt, used: false }, options.ttlMs + options.graceMs);
      return { token, expiresAt: new Date(expiresAt) };
    },
    async peek(token) {
      const entry = await read(keyOf(token));
      return entry && { value: entry.value, expired: entry.expires_at <= Date.now(), used: entry.used };
    },
    async claim(token) {
      const key = keyOf(token);
      // A short lock around read-check-write: two claims never both see the token unused,
      // whichever process they run in.
      const lease = await storage.coordinator.tryLock(`${options.name}:${key}`, lockTtlMs);
      if (!lease) {
        const entry = await read(key);
        return entry ? { ok: false, reason: 'used', value: entry.value } : { ok: false, reason: 'unknown' };
      }
      let entry: Entry<T> | undefined;
      try {
        entry = await read(key);
        if (!entry) return { ok: false, reason: 'unknown' };
        if (entry.used) return { ok: false, reason: 'used', value: entry.value };
        if (entry.expires_at <= Date.now()) return { ok: false, reason: 'expired', value: entry.value };
        await write(key, { ...entry, used: true });
      } finally {
        await lease.release();
      }
      const claimed = entry;
      return {
        ok: true,
        value: claimed.value,
        release: () => write(key, { ...claimed, used: false }),
        // Spent at claim time already; nothing more to record.
        finish: async () => {},
      };
    },
  };
}
