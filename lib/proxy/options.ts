/** Tuning of the proxy; every field has a default (see `proxyDefaults`). */
export interface ProxyOptions {
  /** Longest wait for the provider's response headers (connect included). Default 60 s. */
  timeoutMs?: number;
  /** First retry delay; each further retry doubles it (with jitter). Default 250 ms. */
  retryBaseDelayMs?: number;
  /** Cap of one backoff delay. Default 10 s. */
  retryMaxDelayMs?: number;
  /** A `Retry-After` or rate-limit reset further away than this is not waited for: the 429 passes through. Default 30 s. */
  retryMaxWaitMs?: number;
  /** Request bodies up to this size are buffered when a retry may need to send them again. Default 64 KiB. */
  replayableBodyBytes?: number;
  /** Pages the gateway follows at most when paginating. Default 100. */
  maxPages?: number;
  /** Largest single page (decoded) the paginator reads. Default 32 MiB. */
  maxPageBytes?: number;
  /** Largest response the programmatic API buffers; use `responseType: 'stream'` beyond. Default 50 MiB. */
  maxBufferedResponseBytes?: number;
  /** Idle keep-alive sockets per provider host. Default 256. */
  maxFreeSockets?: number;
}

export type ResolvedProxyOptions = Required<ProxyOptions>;

export const proxyDefaults: ResolvedProxyOptions = {
  timeoutMs: 60_000,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 10_000,
  retryMaxWaitMs: 30_000,
  replayableBodyBytes: 64 * 1024,
  maxPages: 100,
  maxPageBytes: 32 * 1024 * 1024,
  maxBufferedResponseBytes: 50 * 1024 * 1024,
  maxFreeSockets: 256,
};

/** Most `Retries` a caller may ask for. */
export const maxRetries = 10;

export function resolveProxyOptions(options: ProxyOptions = {}): ResolvedProxyOptions {
  const out = { ...proxyDefaults };
  for (const key of Object.keys(proxyDefaults) as (keyof ProxyOptions)[]) {
    const value = options[key];
    if (value !== undefined) {
      if (!Number.isFinite(value) || value < 0) throw new Error(`proxy.${key} must be a non-negative number`);
      out[key] = value;
    }
  }
  return out;
}
