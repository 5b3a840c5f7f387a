import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Logger } from '../http/logger.js';
import { copy } from './copy.js';
import { dropConnection } from './drop-connection.js';
import { headerObject, responseHeaderList } from './headers.js';
import type { PageEvent, WalkSummary } from './pages.js';
import { bodyStream, lengthAndCoding, type BufferedResponse } from './read-response.js';
import type { Cancel } from './upstream.js';

/**
 * Copies `body` into `res` until `res` closes (the promise tells when), with backpressure
 * (`copy`). Either side failing ends the other: a caller who leaves destroys the provider's
 * body (and connection); a provider body cut short, or undecodable, destroys the caller's
 * response. (`copy` rather than `stream.pipeline`, which allocates an AbortController and a
 * DOMException per call on this hot path; `on` rather than `once`: each of these streams
 * closes once, and the listeners go with it, so no wrapper per listener.)
 */
function pipeToCaller(response: IncomingMessage, body: Readable, res: ServerResponse, cancel: Cancel): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      dropConnection(response.socket);
      body.destroy();
    };
    cancel.onAbort = stop;
    body.on('error', () => res.destroy());
    // The provider's connection closed before the body ended: the caller must not see an end.
    body.on('close', () => {
      if (!body.readableEnded) res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) stop();
      cancel.body?.bodyRead();
      resolve();
    });
    copy(body, res);
  });
}

/**
 * The gateway's request id goes out with the provider's headers, in the one `writeHead` (a
 * header set beforehand would send Node down its slower merging path on every call). A
 * provider's own `X-Request-Id` is the provider's header and passes through unchanged.
 */
function withRequestId(headers: OutgoingHttpHeaders, requestId: string | undefined): OutgoingHttpHeaders {
  if (requestId !== undefined && headers['x-request-id'] === undefined) headers['x-request-id'] = requestId;
  return headers;
}

/**
 * Streams the provider's response to the caller: its status, its headers (hop-by-hop ones
 * aside) and its body byte for byte — or decoded (up to `maxDecodedBytes`, then cut), when
 * decompression is on. The headers are
 * written when this returns; the promise settles when the response has closed.
 */
export function sendStream(
  res: ServerResponse,
  response: IncomingMessage,
  decompress: boolean,
  maxDecodedBytes: number,
  cancel: Cancel,
  requestId: string | undefined,
): Promise<void> {
  const { stream, decoding } = bodyStream(response, decompress, maxDecodedBytes);
  const headers = responseHeaderList(response.rawHeaders, decoding ? lengthAndCoding : undefined, requestId);
  // The list goes out as it is unless something set a header on the response before us.
  res.writeHead(
    response.statusCode ?? 502,
    response.statusMessage || undefined,
    res.getHeaderNames().length === 0 ? headers : headerObject(headers),
  );
  return pipeToCaller(response, stream, res, cancel);
}

/** Sends a provider response that was read whole. */
export function sendBuffered(res: ServerResponse, response: BufferedResponse, requestId: string | undefined): void {
  res.writeHead(
    response.status,
    response.statusMessage || undefined,
    withRequestId({ ...response.replyHeaders }, requestId),
  );
  res.end(response.body);
}

const drained = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/**
 * Streams the items of every page as one JSON array. Before the first byte, a failure is the
 * caller's to report (thrown); after it, the response is destroyed so the caller sees a cut,
 * never a well-formed but incomplete array.
 */
export async function sendPages(
  res: ServerResponse,
  pages: AsyncGenerator<PageEvent, WalkSummary>,
  cancel: Cancel,
  logger: Logger,
  requestId: string | undefined,
): Promise<WalkSummary | undefined> {
  const arrayHeaders = withRequestId({ 'content-type': 'application/json; charset=utf-8' }, requestId);
  let started = false;
  try {
    for (;;) {
      const next = await pages.next();
      if (cancel.aborted || res.destroyed) return undefined;
      if (next.done) {
        if (!started) res.writeHead(200, arrayHeaders);
        res.end(started ? ']' : '[]');
        return next.value;
      }
      const event = next.value;
      if (event.kind === 'failed') {
        sendBuffered(res, event.response, requestId);
        return undefined;
      }
      const chunk = JSON.stringify(event.items).slice(1, -1);
      if (!started) {
        res.writeHead(200, arrayHeaders);
        started = true;
        if (!res.write(`[${chunk}`)) await drained(res);
      } else if (!res.write(`,${chunk}`)) {
        await drained(res);
      }
    }
  } catch (error) {
    if (!started) throw error;
    logger.warn('proxy pagination failed mid-response', {
      error: error instanceof Error ? error.message : String(error),
    });
    res.destroy();
    return undefined;
  }
}
