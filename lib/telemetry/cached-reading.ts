/**
 * A value read from elsewhere (a store round trip) for a metrics scrape, at a bounded cost: a
 * reading younger than `maxAgeMs` is served as is, concurrent scrapes share one read, and a read
 * is given up after `timeoutMs` (the scrape then shows the last value, or `undefined`).
 */
export function createCachedReading<T>(read: () => Promise<T>, options: { maxAgeMs: number; timeoutMs: number }) {
  let value: T | undefined;
  let readAt = -Infinity;
  let pending: Promise<void> | undefined;

  const refresh = () => {
    pending ??= read()
      .then(
        (fresh) => {
          value = fresh;
          readAt = Date.now();
        },
        () => {
          // A failed read (the store away) keeps the last value; the next scrape tries again.
        },
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return async (): Promise<T | undefined> => {
    if (Date.now() - readAt < options.maxAgeMs) return value;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.timeoutMs);
    });
    await Promise.race([refresh(), late]);
    clearTimeout(timer);
    return value;
  };
}
