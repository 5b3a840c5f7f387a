import type { Logger } from './http/logger.js';

/** What the gateway started and must stop, by name (for the log when one hangs). */
export interface Closer {
  name: string;
  close(): Promise<void>;
}

/** Longest wait for one part of the gateway to stop in `gateway.close()`. */
export const defaultCloseTimeoutMs = 5_000;

/**
 * Stops every part, last started first, each within `timeoutMs`: a part that cannot finish
 * (a queue client still reconnecting to a Redis that is gone) is logged and left behind, so
 * closing the gateway always ends. A part that fails is logged too; the others still close.
 */
export async function closeParts(
  closers: readonly Closer[],
  logger: Logger,
  timeoutMs = defaultCloseTimeoutMs,
): Promise<void> {
  for (const closer of [...closers].reverse()) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([closer.close().then(() => 'closed' as const), late]);
      if (outcome === 'late')
        logger.warn('gateway close: a part did not stop in time', { part: closer.name, timeout_ms: timeoutMs });
    } catch (error) {
      logger.error('gateway close: a part failed to stop', {
        part: closer.name,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
