import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors.js';
import { canDecode, decode, decodedTooLargeCode } from './decompress.js';
import { responseHeaders } from './headers.js';
import { bodyIdleCode } from './upstream.js';

/** A provider response read whole. */
export interface BufferedResponse {
  status: number;
  statusMessage: string;
  /** For the caller: without hop-by-hop headers, and with the length of `body`. */
  replyHeaders: OutgoingHttpHeaders;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Headers that no longer describe a decoded body (`bodyStream`'s `decoding`): the caller is not sent them. */
export const lengthAndCoding: ReadonlySet<string> = new Set(['content-length', 'content-encoding']);

/** No body to decode: HEAD, 204, 304, or an empty one (a decoder would call it truncated). */
const bodiless = (response: IncomingMessage) =>
  (response as { req?: { method?: string } }).req?.method === 'HEAD' ||
  response.statusCode === 204 ||
  response.statusCode === 304 ||
  response.headers['content-length'] === '0';

/**
 * The body of a response, decoded (up to `maxDecodedBytes`) when `decoded` is true and the
 * coding is known; `decoding` says the coding and length headers no longer describe what is sent.
 */
export function bodyStream(
  response: IncomingMessage,
  decoded: boolean,
  maxDecodedBytes?: number,
): { stream: Readable; decoding: boolean } {
  // Not decoding: the headers object (built lazily by Node) is not even looked at.
  if (!decoded) return { stream: response, decoding: false };
  const coding = response.headers['content-encoding'];
  const decoding = canDecode(coding);
  return { stream: decoding && !bodiless(response) ? decode(response, coding, maxDecodedBytes) : response, decoding };
}

/**
 * Reads a provider response into memory (pages, error pages, the programmatic API), decoded,
 * refusing more than `limit` bytes; the headers then describe the bytes held.
 */
export async function readResponse(
  response: IncomingMessage,
  limit: number,
  decoded = true,
  maxDecodedBytes?: number,
): Promise<BufferedResponse> {
  const { stream, decoding } = bodyStream(response, decoded, maxDecodedBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        stream.destroy();
        throw new GatewayError('upstream_response_too_large', `The provider's response is larger than ${limit} bytes.`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (GatewayError.is(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'EBODY';
    if (code === bodyIdleCode)
      throw new GatewayError('upstream_timeout', 'The provider stopped sending its response body before the end.');
    if (code === decodedTooLargeCode)
      throw new GatewayError(
        'upstream_decoded_too_large',
        `The provider's compressed response decodes to more than ${maxDecodedBytes} bytes.`,
      );
    throw new GatewayError(
      'upstream_error',
      `The provider's response body could not be read${decoding ? ' or decoded' : ''} (${code}).`,
    );
  }
  const body = Buffer.concat(chunks, size);
  const replyHeaders = responseHeaders(response.rawHeaders, decoding ? lengthAndCoding : undefined);
  const headers = { ...response.headers };
  if (decoding) {
    delete headers['content-encoding'];
    replyHeaders['content-length'] = String(body.length);
    headers['content-length'] = String(body.length);
  }
  return { status: response.statusCode ?? 0, statusMessage: response.statusMessage ?? '', replyHeaders, headers, body };
}
