import type { Context } from 'koa';
import { fail } from '../../errors.js';
import { readRawBody } from '../../http/body.js';

const limit = 16 * 1024;

/** Reads a small `application/x-www-form-urlencoded` body (the API key form). Repeated names keep the first value. */
export async function readForm(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    fail('unsupported_media_type', 'The form must be sent as application/x-www-form-urlencoded.');
  }
  const body = await readRawBody(ctx, limit);
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    if (!(name in out)) out[name] = value;
  }
  return out;
}
