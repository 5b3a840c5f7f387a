/**
 * Remembers, for a while, the exchanges a provider refused, so a connection whose refresh token
 * was revoked does not send one doomed token request (and one "auth failed" event) per proxied call.
 * Keys are fingerprints of everything the exchange depended on, so new credentials retry at once.
 */
export interface RefusalMemory {
  recall(fingerprint: string): string | undefined;
  remember(fingerprint: string, message: string): void;
}

export function createRefusalMemory(options: { ttlMs: number; now: () => number; maxEntries?: number }): RefusalMemory {
  const entries = new Map<string, { message: string; until: number }>();
  const max = options.maxEntries ?? 10_000;
  return {
    recall(fingerprint) {
      const entry = entries.get(fingerprint);
      if (!entry) return undefined;
      if (entry.until <= options.now()) {
        entries.delete(fingerprint);
        return undefined;
      }
      return entry.message;
    },
    remember(fingerprint, message) {
      if (options.ttlMs <= 0) return;
      if (entries.size >= max) entries.delete(entries.keys().next().value as string);
      entries.set(fingerprint, { message, until: options.now() + options.ttlMs });
    },
  };
}
