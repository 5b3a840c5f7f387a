import type { Context } from 'koa';
import { fail } from '../errors.js';

export const defaultBodyLimit = 1024 * 1024;

/** Reads a whole request body up to `limit` bytes; past it, 413 `payload_too_large`. */
export async function readRawBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) fail('payload_too_large', `The request body is larger than ${limit} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.resume();
      fail('payload_too_large', `The request body is larger than ${limit} bytes.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads and parses a JSON request body. Called by the routes that take one, so the proxy path
 * never buffers. A body already parsed by a host framework (Express's json parser) is used as is.
 */
export async function readJson(ctx: Context, limit = defaultBodyLimit): Promise<unknown> {
  const parsed = (ctx.req as { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed === 'object' && !Buffer.isBuffer(parsed)) return parsed;
  const type = ctx.get('content-type');
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    fail('unsupported_media_type', 'The request body must be JSON (Content-Type: application/json).');
  }
  const text = (await readRawBody(ctx, limit)).toString('utf8');
  if (text.trim() === '') fail('invalid_json', 'The request body is empty; a JSON object was expected.');
  try {
    return JSON.parse(text);
  } catch {
    fail('invalid_json', 'The request body is not valid JSON.');
  }
}
