import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { fail } from '../../errors.js';

/**
 * The request body as the provider sent it, byte for byte: signatures are over these bytes.
 * Accepts a Buffer a host framework kept (`req.rawBody`, or `express.raw()`'s `req.body`).
 */
export async function readRawBody(ctx: Context, limit: number): Promise<Buffer> {
  const req = ctx.req as IncomingMessage & { rawBody?: unknown; body?: unknown };
  if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
  if (Buffer.isBuffer(req.body)) return req.body;
  if (req.body !== undefined || req.readableEnded) {
    fail('invalid_request', 'A body parser read this request before the gateway, so its signature cannot be checked: mount the gateway before body parsers.');
  }
  const tooLarge = () => fail('payload_too_large', `The webhook body is larger than ${limit} bytes.`);
  if (Number(ctx.get('content-length') || 0) > limit) tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
