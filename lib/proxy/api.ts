import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { fail } from '../errors.js';
import { defaultBodyLimit } from '../http/body.js';
import { readAll, valueBody } from './body.js';
import { maxRetries, type ResolvedProxyOptions } from './options.js';
import type { Exchange } from './exchange.js';
import { walkPages, type WalkSummary } from './pages.js';
import type { Prepare } from './prepare.js';
import { bodyStream, readResponse } from './read-response.js';
import type { Cancel } from './upstream.js';

type QueryValue = string | number | boolean;

/** One call through the proxy from code (sync scripts, the host application). */
export interface ProxyRequest {
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  /** Default GET. */
  method?: string;
  /** Provider path under the base URL (`/v1.0/me`); may carry a query string. */
  path: string;
  query?: Record<string, QueryValue | readonly QueryValue[] | undefined>;
  headers?: Record<string, string>;
  /** Bytes, a string, a stream, or any other value (sent as JSON). */
  body?: unknown;
  /** Retries of 429, 5xx and network errors (idempotent methods); 0–10, default 0. */
  retries?: number;
  /**
   * Follow the provider's pages (`proxy.paginate`); the body is then the array of all items.
   * `maxBytes`: byte budget of all pages read (at most the gateway's `maxPaginatedBytes`), e.g.
   * a script runtime's own budget; past it the call fails `upstream_pages_too_large`.
   */
  paginate?: boolean | { maxItems?: number; maxPages?: number; maxBytes?: number };
  /** Decode gzip/deflate/br bodies. Default true. */
  decompress?: boolean;
  /** `auto` (default): JSON parsed, text as string, else bytes. `stream`: the body unread. */
  responseType?: 'auto' | 'json' | 'text' | 'buffer' | 'stream';
  signal?: AbortSignal;
}

export interface ProxyResponse<T = unknown> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
  /** Present when the call paginated. */
  pagination?: WalkSummary;
}

export interface ProxyApiDeps {
  prepare: Prepare;
  exchange: Exchange;
  options: ResolvedProxyOptions;
}

function splitPath(path: string, query: ProxyRequest['query']): { path: string; query: string } {
  const mark = path.indexOf('?');
  const parts = mark === -1 ? [] : [path.slice(mark + 1)];
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value])
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(one))}`);
  }
  const bare = mark === -1 ? path : path.slice(0, mark);
  return { path: bare.startsWith('/') ? bare : `/${bare}`, query: parts.filter(Boolean).join('&') };
}

function parseBody(
  body: Buffer,
  headers: IncomingHttpHeaders,
  type: NonNullable<ProxyRequest['responseType']>,
): unknown {
  const contentType = headers['content-type'] ?? '';
  const json = type === 'json' || (type === 'auto' && /\bjson\b/i.test(contentType));
  if (json && body.length > 0) {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      if (type === 'json') fail('upstream_error', "The provider's response is not valid JSON.");
    }
  }
  if (type === 'buffer' || (type === 'auto' && !/^text\/|\bjson\b|\bxml\b/i.test(contentType))) return body;
  return body.toString('utf8');
}

/** What a call aborted through its signal rejects with, like fetch: the signal's reason. */
const abortReason = (signal: AbortSignal | undefined): unknown =>
  signal?.reason ?? Object.assign(new Error('The call was aborted.'), { name: 'AbortError' });

/** The programmatic proxy: the same resolution, safety checks, credentials and retries as the route. */
export function createProxyApi(deps: ProxyApiDeps) {
  const { prepare, exchange, options } = deps;

  return async function request(input: ProxyRequest): Promise<ProxyResponse> {
    const retries = input.retries ?? 0;
    if (!Number.isInteger(retries) || retries < 0 || retries > maxRetries)
      fail('invalid_request', `retries must be an integer from 0 to ${maxRetries}.`);
    const method = (input.method ?? 'GET').toUpperCase();
    const { path, query } = splitPath(input.path, input.query);
    const paginate = input.paginate === true ? {} : input.paginate || undefined;
    const maxBytes = paginate?.maxBytes;
    if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes > 0))
      fail('invalid_request', 'paginate.maxBytes must be a positive integer.');
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(input.headers ?? {})) headers[name.toLowerCase()] = value;
    let body = valueBody(input.body);
    if (
      body.kind === 'bytes' &&
      typeof input.body === 'object' &&
      !Buffer.isBuffer(input.body) &&
      !(input.body instanceof Uint8Array)
    ) {
      headers['content-type'] ??= 'application/json';
    }
    const call = await prepare({
      environment: input.environment,
      control: {
        providerConfigKey: input.providerConfigKey,
        connectionId: input.connectionId,
        retries,
        paginate,
        decompress: input.decompress ?? true,
      },
      method,
      path,
      query,
      headers,
    });
    const cancel: Cancel = { aborted: false, onAbort: undefined, body: undefined };
    const abort = () => {
      cancel.aborted = true;
      cancel.onAbort?.();
    };
    if (input.signal?.aborted) abort();
    input.signal?.addEventListener('abort', abort, { once: true });
    const type = input.responseType ?? 'auto';
    // A streamed body stays abortable through the signal after this returns.
    let keepSignal = false;
    try {
      if (call.paginate) {
        if (body.kind === 'stream') body = { kind: 'bytes', bytes: await readAll(body.stream, defaultBodyLimit) };
        const walk = walkPages(exchange, options, call, body.kind === 'bytes' ? body.bytes : undefined, cancel);
        const items: unknown[] = [];
        for (;;) {
          const next = await walk.next();
          if (cancel.aborted) throw abortReason(input.signal);
          if (next.done)
            return {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: items,
              pagination: next.value,
            };
          if (next.value.kind === 'failed') {
            const failed = next.value.response;
            return {
              status: failed.status,
              headers: failed.headers,
              body: parseBody(failed.body, failed.headers, type === 'stream' ? 'auto' : type),
            };
          }
          for (const item of next.value.items) items.push(item);
        }
      }
      const response = await exchange(call, { path: call.path, query: call.query, body: undefined }, body, cancel);
      if (!response) throw abortReason(input.signal);
      if (type === 'stream') {
        const { stream, decoding } = bodyStream(response, call.decompress, call.maxDecodedBytes);
        const headers = { ...response.headers };
        if (decoding) {
          delete headers['content-encoding'];
          delete headers['content-length'];
        }
        keepSignal = true;
        return { status: response.statusCode ?? 0, headers, body: stream as Readable };
      }
      const read = await readResponse(
        response,
        options.maxBufferedResponseBytes,
        call.decompress,
        call.maxDecodedBytes,
      ).finally(() => cancel.body?.bodyRead());
      return { status: read.status, headers: read.headers, body: parseBody(read.body, read.headers, type) };
    } finally {
      if (!keepSignal) input.signal?.removeEventListener('abort', abort);
    }
  };
}

export type ProxyApi = ReturnType<typeof createProxyApi>;
