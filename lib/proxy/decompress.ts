import { PassThrough, pipeline, Transform, type Readable } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

const decodable = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

/** The codings of a `Content-Encoding` value in the order they were applied, `identity` left out. */
export function codings(contentEncoding: string | undefined): string[] {
  if (!contentEncoding) return [];
  return contentEncoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'identity');
}

/** True when every coding of the value is one the gateway decodes (gzip, deflate, br). */
export function canDecode(contentEncoding: string | undefined): boolean {
  const list = codings(contentEncoding);
  return list.length > 0 && list.every((c) => decodable.has(c));
}

// RFC 9110 says "deflate" is the zlib format, but some servers send raw deflate: the first
// two bytes tell them apart (a zlib header is a multiple of 31 with compression method 8).
const looksZlib = (chunk: Buffer) =>
  chunk.length < 2 ||
  (((chunk[0] as number) & 0x0f) === 8 && (((chunk[0] as number) << 8) | (chunk[1] as number)) % 31 === 0);

function inflateEither(source: Readable): Readable {
  const out = new PassThrough();
  // A consumer that gives up (client gone) stops the provider's body too.
  out.once('close', () => {
    if (!source.readableEnded) source.destroy();
  });
  const iterator = source[Symbol.asyncIterator]();
  (async () => {
    const first = await iterator.next();
    if (first.done) return void out.end();
    const head = first.value as Buffer;
    async function* all() {
      yield head;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value as Buffer;
    }
    await pipelineAsync(all(), looksZlib(head) ? createInflate() : createInflateRaw(), out);
  })().catch((error: Error) => {
    out.destroy(error);
    source.destroy();
  });
  return out;
}

/** The error a decoded body fails with past its cap. */
export const decodedTooLargeCode = 'UPSTREAM_DECODED_TOO_LARGE';

/** Passes bytes through until `max` have passed, then fails: the cap on what a small compressed body may expand to. */
function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max)
        return done(
          Object.assign(new Error(`the decoded body is larger than ${max} bytes`), { code: decodedTooLargeCode }),
        );
      done(null, chunk);
    },
  });
}

/**
 * The decoded body, streaming, failing past `maxBytes` decoded. Destroying the result destroys
 * `source` (and so the provider connection); a corrupt or oversized body errors the result.
 */
export function decode(
  source: Readable,
  contentEncoding: string | undefined,
  maxBytes = Number.POSITIVE_INFINITY,
): Readable {
  let stream = source;
  for (const coding of codings(contentEncoding).reverse()) {
    const input = stream;
    if (coding === 'deflate') {
      stream = inflateEither(input);
      continue;
    }
    const decoder = coding === 'br' ? createBrotliDecompress() : createGunzip();
    stream = pipeline(input, decoder, () => {});
  }
  return Number.isFinite(maxBytes) ? pipeline(stream, capped(maxBytes), () => {}) : stream;
}
