import type { IncomingMessage } from 'node:http';
import type { AuthMaterial, CredentialResolver } from '../credentials/index.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../http/logger.js';
import { canReplay, frameBody, openBody, type BodySource, type RequestBody } from './body.js';
import { requestHeaders } from './headers.js';
import type { ResolvedProxyOptions } from './options.js';
import type { PageRequest } from './paginate.js';
import type { PreparedCall } from './prepare.js';
import { eventSubject, proxyChannels, responseEvent, type ProxyEventSubject } from './diagnostics.js';
import { announcedWait, backoff, isIdempotent, isRetryableStatus, sleep } from './retry.js';
import type { Cancel, SendOutcome, Upstream, UpstreamRequest } from './upstream.js';

export interface ExchangeDeps {
  upstream: Upstream;
  resolver: CredentialResolver;
  logger: Logger;
  options: ResolvedProxyOptions;
}

function upstreamError(outcome: Extract<SendOutcome, { ok: false }>, timeoutMs: number): GatewayError {
  switch (outcome.reason) {
    case 'unreachable':
      return new GatewayError(
        'upstream_unreachable',
        `Could not connect to the provider at ${outcome.host} (${outcome.code}).`,
      );
    case 'timeout':
      return new GatewayError(
        'upstream_timeout',
        `The provider at ${outcome.host} did not answer within ${timeoutMs} ms.`,
      );
    default:
      return new GatewayError(
        'upstream_error',
        `The connection to the provider at ${outcome.host} failed before it answered (${outcome.code}).`,
      );
  }
}

const subject = (call: PreparedCall, page: PageRequest): ProxyEventSubject => eventSubject(call, page.path);

/** Caller query, then the catalog's static query, then credentials; a caller parameter named like either is dropped. */
function joinQuery(callerQuery: string, staticQuery: string, auth: Record<string, string>): string {
  const authNames = Object.keys(auth);
  if (!staticQuery && authNames.length === 0) return callerQuery;
  const reserved = new Set([
    ...authNames,
    ...staticQuery.split('&').map((p) => decodeURIComponent(p.split('=')[0] ?? '')),
  ]);
  const parts = callerQuery
    ? callerQuery.split('&').filter((pair) => {
        const name = pair.split('=')[0] ?? '';
        try {
          return !reserved.has(decodeURIComponent(name));
        } catch {
          return true;
        }
      })
    : [];
  if (staticQuery) parts.push(staticQuery);
  for (const name of authNames) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(auth[name] as string)}`);
  return parts.join('&');
}

/**
 * Inject → forward → retry. Sends one provider request (a page, or the whole call), retrying
 * when the caller asked for it (`Retries`) and once more after a forced token refresh when the
 * provider answers 401 to a token. Returns the final provider response, unread — or undefined
 * when the caller went away (`cancel.aborted`): there is no one left to answer, so that is a
 * plain outcome, not an error.
 */
export function createExchange(deps: ExchangeDeps) {
  const { upstream, resolver, options } = deps;
  /** The material at once when nothing has to be obtained, else the resolver's answer. */
  const materialOf = (call: PreparedCall): AuthMaterial | Promise<AuthMaterial> =>
    resolver.peek?.(call.target) ?? resolver.resolve(call.target);

  const build = (
    call: PreparedCall,
    page: PageRequest,
    body: RequestBody,
    auth: AuthMaterial,
    stream: BodySource,
  ): UpstreamRequest => {
    const headers = requestHeaders({
      incoming: call.headers,
      base: call.base,
      auth,
      acceptCompressed: call.decompress || call.paginate !== undefined,
    });
    frameBody(headers, body, call.method);
    const query = joinQuery(page.query, call.base.query, auth.query);
    return {
      base: call.base,
      method: call.method,
      path: `${call.base.basePath}${page.path}${query ? `?${query}` : ''}`,
      headers,
      body: stream,
      failing: body.kind === 'stream' ? body.stream : undefined,
    };
  };

  /**
   * The usual call: credentials at hand, and a first answer that is final (no refresh, no retry,
   * no failure). It goes out without an async frame; anything else continues in `attempts`.
   */
  function exchange(
    call: PreparedCall,
    page: PageRequest,
    body: RequestBody,
    cancel: Cancel,
  ): Promise<IncomingMessage | undefined> {
    const material = materialOf(call);
    // Only read the clock when someone listens (metrics, traces): upstream time.
    const started = proxyChannels.response.hasSubscribers ? performance.now() : 0;
    const stream = material instanceof Promise || cancel.aborted ? undefined : openBody(body);
    if (!stream) return attempts(call, page, body, cancel, material, undefined, started);
    const auth = material as AuthMaterial;
    return upstream.send(build(call, page, body, auth, stream), cancel).then((outcome) => {
      if (outcome.ok) {
        const status = outcome.response.statusCode ?? 0;
        const mayRetry = isRetryableStatus(status) && call.retries > 0;
        const mayRefresh = status === 401 && call.refreshOn401;
        if (!mayRetry && !mayRefresh) return delivered(call, page, outcome.response, 0, false, started);
      }
      return attempts(call, page, body, cancel, auth, outcome, started);
    });
  }

  const delivered = (
    call: PreparedCall,
    page: PageRequest,
    response: IncomingMessage,
    retries: number,
    refreshed: boolean,
    started: number,
  ): IncomingMessage => {
    if (proxyChannels.response.hasSubscribers) {
      const durationMs = started === 0 ? 0 : performance.now() - started;
      proxyChannels.response.publish(
        responseEvent(call, page.path, response.statusCode ?? 0, retries, refreshed, durationMs),
      );
    }
    return response;
  };

  /** The loop: sends (unless `first` is the outcome of a first send already made), then refreshes, retries or fails as it must. */
  async function attempts(
    call: PreparedCall,
    page: PageRequest,
    body: RequestBody,
    cancel: Cancel,
    material: AuthMaterial | Promise<AuthMaterial>,
    first: SendOutcome | undefined,
    started: number,
  ): Promise<IncomingMessage | undefined> {
    let auth = material instanceof Promise ? await material : material;
    let refreshed = false;
    let staleSocketRetried = false;
    let retries = 0;
    let pending = first;
    const retryable = () => retries < call.retries && isIdempotent(call.method) && canReplay(body);
    for (;;) {
      let outcome: SendOutcome;
      if (pending) {
        outcome = pending;
        pending = undefined;
      } else {
        if (cancel.aborted) return undefined;
        const stream = openBody(body);
        if (!stream) throw new Error('a streamed request body cannot be sent twice');
        outcome = await upstream.send(build(call, page, body, auth, stream), cancel);
      }
      if (!outcome.ok) {
        if (outcome.reason === 'aborted') return undefined;
        // A kept-alive socket the provider had just closed: the request never reached it.
        if (
          outcome.reason === 'reset' &&
          outcome.reusedSocket &&
          !staleSocketRetried &&
          canReplay(body) &&
          isIdempotent(call.method)
        ) {
          staleSocketRetried = true;
          continue;
        }
        if (!retryable()) {
          if (proxyChannels.error.hasSubscribers)
            proxyChannels.error.publish({ ...subject(call, page), reason: outcome.reason, code: outcome.code });
          throw upstreamError(outcome, options.timeoutMs);
        }
        const delay = backoff(retries++, options.retryBaseDelayMs, options.retryMaxDelayMs);
        if (proxyChannels.retry.hasSubscribers)
          proxyChannels.retry.publish({
            ...subject(call, page),
            reason: outcome.reason,
            attempt: retries,
            delayMs: delay,
          });
        deps.logger.debug('proxy retry', {
          reason: outcome.reason,
          code: outcome.code,
          host: outcome.host,
          delay_ms: delay,
          attempt: retries,
        });
        if (!(await sleep(delay, cancel))) return undefined;
        continue;
      }
      const response = outcome.response;
      const status = response.statusCode ?? 0;
      if (status === 401 && call.refreshOn401 && !refreshed && canReplay(body)) {
        response.resume();
        refreshed = true;
        // Same target object: the resolver knows which token the provider refused.
        auth = await resolver.resolve(call.target, { forceRefresh: true });
        continue;
      }
      if (isRetryableStatus(status) && retryable()) {
        const announced = announcedWait(
          response.headers,
          status === 429 ? (call.target.provider.proxy.retry_after_headers ?? []) : [],
        );
        if (announced === undefined || announced <= options.retryMaxWaitMs) {
          const delay = announced ?? backoff(retries, options.retryBaseDelayMs, options.retryMaxDelayMs);
          retries++;
          response.resume();
          if (proxyChannels.retry.hasSubscribers)
            proxyChannels.retry.publish({
              ...subject(call, page),
              reason: String(status),
              attempt: retries,
              delayMs: delay,
            });
          deps.logger.debug('proxy retry', { status, host: call.base.host, delay_ms: delay, attempt: retries });
          if (!(await sleep(delay, cancel))) return undefined;
          continue;
        }
      }
      return delivered(call, page, response, retries, refreshed, started);
    }
  }

  return exchange;
}

export type Exchange = ReturnType<typeof createExchange>;
