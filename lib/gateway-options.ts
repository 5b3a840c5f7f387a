import type { EncryptionKey } from './crypto/index.js';
import type { Environment } from './environments/index.js';
import type { Logger } from './http/logger.js';
import type { PostConnectionHook } from './connect/index.js';
import type { ProxyOptions } from './proxy/index.js';
import type { ScriptsOptions } from './scripts/index.js';
import type { Storage } from './storage/index.js';
import type { MetricsOptions, TracingOptions } from './telemetry/index.js';
import type { WebhookOptions } from './webhooks/index.js';

/** Everything `createGateway` needs; nothing is read from the process environment. */
export interface GatewayOptions {
  /** At least one; each with its own secret key. */
  environments: Environment[];
  /** Where connections, integrations and records live (see `adapters/storage`). */
  storage: Storage;
  /** AES-256-GCM keys; the first seals, all open (rotation). A base64 string is one key with id `k1`. */
  encryptionKeys: EncryptionKey[] | string;
  /**
   * The public address of the gateway including any mount prefix, e.g. `https://api.example.com/portico`.
   * Callback, setup and webhook URLs are built from it.
   */
  baseUrl: string;
  /** Extra or overriding catalog entries, in the shape of spec 2.1. */
  providers?: unknown[];
  /**
   * Where log lines go. Default: JSON lines on stdout at `info` (`createLogger`). A logger of
   * your own may implement `enabled(level)` so request lines are not even built when off.
   */
  logger?: Logger;
  /**
   * Longest wait for one store command; past it (or when the store refuses) the request answers
   * `503 store_unavailable` with `Retry-After`. Default 1.5 s.
   */
  storeTimeoutMs?: number;
  /**
   * How long a cached integration/connection may be stale when the storage is shared. Default 5 s.
   * While the store is unavailable, a cached one keeps serving the proxy 60 s more (lib/storage/read-cache.ts).
   */
  cacheTtlMs?: number;
  /**
   * `close()` waits at most this long for each part (webhook queue, scripts, records, proxy) to
   * stop, then logs it and moves on, so closing always ends. Default 5 s.
   */
  closeTimeoutMs?: number;
  /**
   * `close()` resolves within this long in all, whatever the store does: parts not stopped by
   * then are logged and left to stop on their own. Default 10 s.
   */
  closeDeadlineMs?: number;
  /** Largest JSON body a route accepts. Default 1 MiB. */
  bodyLimit?: number;
  /** Webhook delivery (timeout 20 s, 2 retries by default), queue and history settings. */
  webhooks?: WebhookOptions;
  /** How long a connect session token can start an authorization. Default 30 minutes. */
  connectSessionTtlMs?: number;
  /** The connect pages' default app name and accent (`#rgb`/`#rrggbb`); a session's `branding` overrides each field. */
  connectBranding?: { app_name?: string; accent_color?: string };
  /** Hooks run after a connection is authorized, by the catalog's `post_connection_script` name. */
  postConnectionHooks?: Record<string, PostConnectionHook>;
  /** Proxy timeouts, retry delays, pagination caps and keep-alive settings (see lib/proxy/options.ts). */
  proxy?: ProxyOptions;
  /** Scripts (syncs, actions): modules or a directory to register, worker and time limits (see lib/scripts/options.ts). */
  scripts?: ScriptsOptions;
  /**
   * Prometheus metrics in a registry of this gateway's own (`gateway.metrics.registry`). Off
   * unless given; with `token`, `GET /metrics` answers on the gateway's stack behind that token.
   */
  metrics?: MetricsOptions;
  /**
   * OpenTelemetry spans (proxy call, token renewal, webhook delivery). Default: spans go to the
   * provider an SDK registered with `@opentelemetry/api`, if any; `false` turns them off.
   */
  tracing?: TracingOptions | false;
}
