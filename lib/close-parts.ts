import type { Logger } from './http/logger.js';

/** What the gateway started and must stop, by name (for the log when one hangs). */
export interface Closer {
  name: string;
  close(): Promise<void>;
}

/** Longest wait for one part of the gateway to stop in `gateway.close()`. */
export const defaultCloseTimeoutMs = 5_000;

/** Longest `gateway.close()` takes in all, whatever its parts (and the store under them) do. */
export const defaultCloseDeadlineMs = 10_000;

export interface CloseDeadlines {
  /** Longest wait for one part. Default 5 s. */
  partMs?: number | undefined;
  /** Longest wait for all of them. Default 10 s. */
  totalMs?: number | undefined;
}

/**
 * Stops every part, last started first, each within `partMs` and all within `totalMs`: a part
 * that cannot finish (a queue client still reconnecting to a Redis that is gone) is logged and
 * left behind, so closing the gateway always ends. Parts not reached by the overall deadline are
 * told to stop all at once, without waiting for them, and logged. A part that fails is logged
 * too; the others still close. (A deadline is a timer: it holds as long as the event loop turns.)
 */
export async function closeParts(
  closers: readonly Closer[],
  logger: Logger,
  { partMs = defaultCloseTimeoutMs, totalMs = defaultCloseDeadlineMs }: CloseDeadlines = {},
): Promise<void> {
  const deadline = Date.now() + totalMs;
  const order = [...closers].reverse();
  for (const [index, closer] of order.entries()) {
    const left = deadline - Date.now();
    if (left <= 0) {
      const rest = order.slice(index);
      for (const part of rest) void part.close().catch(() => undefined);
      logger.warn('gateway close: the overall deadline passed; the parts left are stopping unattended', {
        parts: rest.map((part) => part.name),
        deadline_ms: totalMs,
      });
      return;
    }
    const waitMs = Math.min(partMs, left);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      // Not unref'd: close() resolves by its deadline, so what the application does after it runs.
      timer = setTimeout(() => resolve('late'), waitMs);
    });
    try {
      const outcome = await Promise.race([closer.close().then(() => 'closed' as const), late]);
      if (outcome === 'late')
        logger.warn('gateway close: a part did not stop in time', { part: closer.name, timeout_ms: waitMs });
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
