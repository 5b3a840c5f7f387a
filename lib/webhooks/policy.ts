/**
 * When a webhook delivery is retried, and after how long (spec 6.3 and 8, in force since
 * 3 December 2025: 20 s per attempt, 2 retries).
 */
export interface DeliveryPolicy {
  /** One attempt's deadline, from sending the request to the response headers. */
  timeoutMs: number;
  /** Attempts after the first; 3 attempts in all by default. */
  retries: number;
  /** Pause before the first retry; each later pause is `backoffFactor` times longer. */
  backoffMs: number;
  backoffFactor: number;
  /** Up to this fraction is added at random to each pause, so failed deliveries do not return in a herd. */
  jitter: number;
  /** A receiver's `Retry-After` is honoured up to this long. */
  maxRetryAfterMs: number;
}

export const defaultDeliveryPolicy: Readonly<DeliveryPolicy> = Object.freeze({
  timeoutMs: 20_000,
  retries: 2,
  backoffMs: 5_000,
  backoffFactor: 6,
  jitter: 0.2,
  maxRetryAfterMs: 3_600_000,
});

/** What one attempt came to, as far as retrying is concerned. */
export type AttemptResult =
  | { kind: 'response'; status: number; retryAfterMs: number | null }
  | { kind: 'timeout' }
  | { kind: 'network'; message: string };

export type Verdict =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'failed'; reason: 'client_error' | 'redirect' | 'attempts_exhausted' };

/** Retries network errors, timeouts, 5xx and 429; never other 4xx or redirects. */
export function isRetryable(result: AttemptResult): boolean {
  if (result.kind !== 'response') return true;
  return result.status >= 500 || result.status === 429;
}

/** The pause before attempt `attempt + 1`, given that `attempt` (1-based) just failed. */
export function backoffDelay(policy: DeliveryPolicy, attempt: number, random: () => number = Math.random): number {
  const base = policy.backoffMs * policy.backoffFactor ** Math.max(0, attempt - 1);
  return Math.round(base * (1 + policy.jitter * random()));
}

export function decide(policy: DeliveryPolicy, attempt: number, result: AttemptResult): Verdict {
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if (!isRetryable(result)) {
    return { kind: 'failed', reason: result.kind === 'response' && result.status < 400 ? 'redirect' : 'client_error' };
  }
  if (attempt > policy.retries) return { kind: 'failed', reason: 'attempts_exhausted' };
  // The receiver's own Retry-After beats our backoff (429 and 503 usually carry it).
  const retryAfter = result.kind === 'response' ? result.retryAfterMs : null;
  const delayMs = retryAfter === null ? backoffDelay(policy, attempt) : Math.min(retryAfter, policy.maxRetryAfterMs);
  return { kind: 'retry', delayMs };
}

/** `Retry-After: 120` or `Retry-After: <HTTP date>`, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
