/** Tuning of the proxy; every field has a default (see `proxyDefaults`). */
export interface ProxyOptions extends ProxyNumbers, ProxyIntegrationOptions {}

/** The numeric settings (each with a default). */
interface ProxyNumbers {
  /** Longest wait for the provider's response headers (connect included). Default 60 s. */
  timeoutMs?: number;
  /**
   * Longest silence in a provider's response body once its headers came: past it (checked, so
   * between one and two periods) the body is cut — a streamed answer ends short, a read one
   * (pages, the programmatic API) fails `504 upstream_timeout`. Default 30 s.
   */
  bodyIdleTimeoutMs?: number;
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
  /**
   * Byte budget of one paginated call: all its pages, decoded, together. Past it the call fails
   * `502 upstream_pages_too_large` (cut short when the items are already streaming). Default 64 MiB.
   */
  maxPaginatedBytes?: number;
  /**
   * Largest decoded size of a compressed provider body (a small gzip can decode to gigabytes):
   * past it, a read body fails `502 upstream_decoded_too_large` and a streamed one is cut short.
   * Default 64 MiB; `maxDecodedBytesByIntegration` sets it per integration unique key.
   */
  maxDecodedBytes?: number;
  /** Largest response the programmatic API buffers; use `responseType: 'stream'` beyond. Default 50 MiB. */
  maxBufferedResponseBytes?: number;
  /** Idle keep-alive connections kept per provider host and port. Default 256. */
  maxFreeSockets?: number;
}

/** Per-integration settings, by integration unique key. */
export interface ProxyIntegrationOptions {
  /** `maxDecodedBytes` for the calls of these integrations. */
  maxDecodedBytesByIntegration?: Readonly<Record<string, number>>;
}

type NumericProxyOptions = Required<ProxyNumbers>;
export type ResolvedProxyOptions = NumericProxyOptions & Required<ProxyIntegrationOptions>;

export const proxyDefaults: NumericProxyOptions = {
  timeoutMs: 60_000,
  bodyIdleTimeoutMs: 30_000,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 10_000,
  retryMaxWaitMs: 30_000,
  replayableBodyBytes: 64 * 1024,
  maxPages: 100,
  maxPageBytes: 32 * 1024 * 1024,
  maxPaginatedBytes: 64 * 1024 * 1024,
  maxDecodedBytes: 64 * 1024 * 1024,
  maxBufferedResponseBytes: 50 * 1024 * 1024,
  maxFreeSockets: 256,
};

/** Most `Retries` a caller may ask for. */
export const maxRetries = 10;

const checked = (name: string, value: number) => {
  if (!Number.isFinite(value) || value < 0) throw new Error(`proxy.${name} must be a non-negative number`);
  return value;
};

export function resolveProxyOptions(options: ProxyOptions = {}): ResolvedProxyOptions {
  const out: ResolvedProxyOptions = { ...proxyDefaults, maxDecodedBytesByIntegration: {} };
  for (const key of Object.keys(proxyDefaults) as (keyof ProxyNumbers)[]) {
    const value = options[key];
    if (value !== undefined) out[key] = checked(key, value);
  }
  const byIntegration = options.maxDecodedBytesByIntegration ?? {};
  for (const [key, value] of Object.entries(byIntegration)) checked(`maxDecodedBytesByIntegration.${key}`, value);
  // A null-prototype copy: an integration named "constructor" must not find Object's.
  out.maxDecodedBytesByIntegration = Object.freeze(
    Object.assign(Object.create(null) as Record<string, number>, byIntegration),
  );
  return out;
}
