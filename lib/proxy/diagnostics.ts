import { channel } from 'node:diagnostics_channel';

/**
 * Lifecycle events of proxied calls on `node:diagnostics_channel`, so logs and metrics attach
 * without touching the pipeline. Nothing is built when no one subscribes.
 *
 *   portico:proxy:response  the provider's final answer to one call (or page)
 *   portico:proxy:retry     a retry is about to wait (status or network reason, delay)
 *   portico:proxy:error     the provider could not be reached or did not answer in time
 */
export const proxyChannels = {
  response: channel('portico:proxy:response'),
  retry: channel('portico:proxy:retry'),
  error: channel('portico:proxy:error'),
};

/** Who the call was for; never a credential, a header or a query string. */
export interface ProxyEventSubject {
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  provider: string;
  method: string;
  host: string;
  /** The provider path, without the query string (which may carry credentials). */
  path: string;
}

export interface ProxyResponseEvent extends ProxyEventSubject { status: number; retries: number; refreshed: boolean }
export interface ProxyRetryEvent extends ProxyEventSubject { reason: string; attempt: number; delayMs: number }
export interface ProxyErrorEvent extends ProxyEventSubject { reason: string; code: string }
