import { channel } from 'node:diagnostics_channel';
import type { PreparedCall } from './prepare.js';

/**
 * Lifecycle events of proxied calls on `node:diagnostics_channel`, so logs, metrics and traces
 * attach without touching the pipeline. Nothing is built when no one subscribes.
 *
 *   portico:proxy:call:start  a `/proxy/…` call was resolved and is about to go out
 *   portico:proxy:call:end    the same event object, once the caller's response has closed
 *   portico:proxy:response    the provider's final answer to one call (or page)
 *   portico:proxy:retry       a retry is about to wait (status or network reason, delay)
 *   portico:proxy:error       the provider could not be reached or did not answer in time
 */
export const proxyChannels = {
  callStart: channel('portico:proxy:call:start'),
  callEnd: channel('portico:proxy:call:end'),
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

/** The subject of an event about `call` (one page of it: `path`), for the events of the rare paths (retry, error). */
export const eventSubject = (call: PreparedCall, path: string): ProxyEventSubject => ({
  environment: call.target.environment,
  providerConfigKey: call.target.connection.provider_config_key,
  connectionId: call.target.connection.connection_id,
  provider: call.target.provider.name,
  method: call.method,
  host: call.base.host,
  path,
});

/**
 * One call through `/proxy/…`: published at start, then again (the same object, completed)
 * at the end, so a subscriber can keep what it needs (a span) on it.
 */
export interface ProxyCallEvent extends ProxyEventSubject {
  requestId: string | undefined;
  /** `performance.now()` at the start. */
  startedAt: number;
  /** Set at the end: the status the caller got (0 when it went away before any). */
  status?: number | undefined;
  /** Set at the end: start to the caller's response closing, in milliseconds. */
  durationMs?: number | undefined;
}

/** `durationMs`: from the exchange start (credentials at hand or being renewed) to the provider's final response headers, retries included. */
export interface ProxyResponseEvent extends ProxyEventSubject {
  status: number;
  retries: number;
  refreshed: boolean;
  durationMs: number;
}
export interface ProxyRetryEvent extends ProxyEventSubject {
  reason: string;
  attempt: number;
  delayMs: number;
}
export interface ProxyErrorEvent extends ProxyEventSubject {
  reason: string;
  code: string;
}

/*
 * The two events of every call, each one object literal with all its fields: one allocation of
 * one shape. Built as the subject plus fields (`Object.assign`) each took two allocations and a
 * property copy: the standalone server with metrics on ran about 2,200 more instructions a call
 * (bench/README.md, "Figures: session 28"). Class instances counted the same as literals, but a
 * profile showed their base constructor and field definitions as a cost of their own.
 */

/** The call's event, published at start (`status` and `durationMs` are set at the end). */
export const callEvent = (call: PreparedCall, requestId: string | undefined, startedAt: number): ProxyCallEvent => ({
  environment: call.target.environment,
  providerConfigKey: call.target.connection.provider_config_key,
  connectionId: call.target.connection.connection_id,
  provider: call.target.provider.name,
  method: call.method,
  host: call.base.host,
  path: call.path,
  requestId,
  startedAt,
  status: undefined,
  durationMs: undefined,
});

/** The provider's final answer to one page (`path`) of `call`. */
export const responseEvent = (
  call: PreparedCall,
  path: string,
  status: number,
  retries: number,
  refreshed: boolean,
  durationMs: number,
): ProxyResponseEvent => ({
  environment: call.target.environment,
  providerConfigKey: call.target.connection.provider_config_key,
  connectionId: call.target.connection.connection_id,
  provider: call.target.provider.name,
  method: call.method,
  host: call.base.host,
  path,
  status,
  retries,
  refreshed,
  durationMs,
});
