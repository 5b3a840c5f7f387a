import type { Context } from 'koa';
import { fail } from '../errors.js';

const limit = 16 * 1024;

/** Reads a small `application/x-www-form-urlencoded` body (the API key form). Repeated names keep the first value. */
export async function readForm(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    fail('unsupported_media_type', 'The form must be sent as application/x-www-form-urlencoded.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.resume();
      fail('payload_too_large', `The form is larger than ${limit} bytes.`);
    }
    chunks.push(chunk);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    if (!(name in out)) out[name] = value;
  }
  return out;
}
