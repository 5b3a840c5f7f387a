import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Readable, type Writable } from 'node:stream';
import { fail, GatewayError } from '../errors.js';
import { copy } from './copy.js';

/**
 * A proxied request's body. Only `bytes` can be sent more than once (retries, a refresh after
 * a 401, pages); a `stream` goes to the provider once, as it arrives.
 */
export type RequestBody =
  | { kind: 'none' }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'stream'; stream: Readable; length: number | undefined; used: boolean };

const none: RequestBody = { kind: 'none' };
export const noBody = (): RequestBody => none;

export const canReplay = (body: RequestBody) => body.kind !== 'stream';

/** What the transport pipes into the provider request: a stream, or nothing at all. */
export interface BodySource {
  pipe<T extends Writable>(destination: T): T;
}

/**
 * Bytes at hand (or none): "piping" them writes them and ends the provider request at once,
 * with no stream and no listeners. (A caller's bodiless request is left for Node to discard
 * when the response ends.)
 */
const bytesSource = (bytes: Buffer | undefined): BodySource => ({
  pipe(destination) {
    destination.end(bytes);
    return destination;
  },
});

export const emptyBody = bytesSource(undefined);

/** A caller's upload, copied into the provider request as it arrives (errors: `UpstreamRequest.failing`). */
const streamSource = (stream: Readable): BodySource => ({
  pipe(destination) {
    copy(stream, destination);
    return destination;
  },
});

/** The body for the next attempt; undefined when a streamed body was sent already. */
export function openBody(body: RequestBody): BodySource | undefined {
  switch (body.kind) {
    case 'none':
      return emptyBody;
    case 'bytes':
      return bytesSource(body.bytes);
    case 'stream':
      if (body.used) return undefined;
      body.used = true;
      return streamSource(body.stream);
  }
}

const bodyMethods = new Set(['POST', 'PUT', 'PATCH']);

/** Sets the framing headers the body needs (`content-length` or chunked) on headers that have none yet. */
export function frameBody(headers: OutgoingHttpHeaders, body: RequestBody, method: string): void {
  if (body.kind === 'bytes') headers['content-length'] = String(body.bytes.length);
  else if (body.kind === 'stream') {
    if (body.length !== undefined) headers['content-length'] = String(body.length);
    else headers['transfer-encoding'] = 'chunked';
  } else if (bodyMethods.has(method)) {
    // Node would send an empty POST chunked; providers expect (some demand) a length.
    headers['content-length'] = '0';
  }
}

/**
 * Reads a stream whole, refusing more than `limit` bytes; past the limit the rest is drained
 * (not destroyed), so a 413 can still reach the caller.
 */
export function readAll(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    stream.on('data', (chunk: Buffer | string) => {
      if (failed) return;
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > limit) {
        failed = true;
        reject(new GatewayError('payload_too_large', `The request body is larger than ${limit} bytes.`));
        return;
      }
      chunks.push(buffer);
    });
    stream.once('end', () => {
      if (!failed) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    stream.once('error', (error) => {
      if (failed) return;
      failed = true;
      reject(error);
    });
  });
}

/**
 * The body of an incoming proxied request. It stays a stream unless it may have to be sent
 * again (`replayLimit` > 0) and declares a length within that limit; then it is read first
 * (only then is the answer a promise: the hot path does not wait a tick for nothing).
 */
export function incomingBody(req: IncomingMessage, replayLimit: number): RequestBody | Promise<RequestBody> {
  const chunked = req.headers['transfer-encoding'] !== undefined;
  const declared = Number(req.headers['content-length'] ?? 0);
  const length = chunked || !Number.isSafeInteger(declared) ? undefined : declared;
  // Mounted in Express after a body parser: the stream is spent, the parsed body is what is left.
  const parsed = (req as { body?: unknown }).body;
  if (parsed !== undefined && req.readableEnded)
    return { kind: 'bytes', bytes: alreadyParsed(parsed, req.headers['content-type']) };
  if (length === 0) return none;
  if (length !== undefined && length <= replayLimit)
    return readAll(req, replayLimit).then((bytes) => ({ kind: 'bytes', bytes }));
  return { kind: 'stream', stream: req, length, used: false };
}

/**
 * The bytes of a body a host framework's parser already read: raw bytes and text as they are,
 * JSON and flat forms encoded again in their own content type. Anything else cannot be
 * rebuilt faithfully, so the caller is told where to mount the gateway.
 */
function alreadyParsed(value: unknown, contentType: string | undefined): Buffer {
  if (Buffer.isBuffer(value) || typeof value === 'string') return toBytes(value);
  const type = contentType?.toLowerCase() ?? '';
  if (/^application\/([\w.+-]*\+)?json\b/.test(type)) return toBytes(value);
  if (
    type.startsWith('application/x-www-form-urlencoded') &&
    value !== null &&
    typeof value === 'object' &&
    Object.values(value).every((v) => typeof v === 'string')
  ) {
    return Buffer.from(new URLSearchParams(value as Record<string, string>).toString());
  }
  return fail(
    'invalid_request',
    'The request body was already read by a body parser mounted before the gateway; mount the gateway before body parsers (or leave them off its path).',
  );
}

/** Bytes of a body given as a value: raw bytes and strings as they are, anything else as JSON. */
export function toBytes(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'string') return Buffer.from(value);
  return Buffer.from(JSON.stringify(value));
}

/** A body given to the programmatic API. */
export function valueBody(value: unknown): RequestBody {
  if (value === undefined || value === null) return noBody();
  if (value instanceof Readable) return { kind: 'stream', stream: value, length: undefined, used: false };
  return { kind: 'bytes', bytes: toBytes(value) };
}
