import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { fail } from '../errors.js';
import type { Environment } from './environment.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

export interface KeyMatcher {
  /** The environment whose secret key equals `presented`, compared in constant time. */
  match(presented: string): Environment | undefined;
}

export function createKeyMatcher(environments: readonly Environment[]): KeyMatcher {
  const table = environments.map((env) => ({ env, digest: digest(env.secretKey) }));
  return {
    match(presented) {
      // Hashing first gives equal lengths; every key is compared so timing tells nothing.
      const candidate = digest(presented);
      let found: Environment | undefined;
      for (const entry of table) {
        if (timingSafeEqual(entry.digest, candidate)) found = entry.env;
      }
      return found;
    },
  };
}

/** Requires `Authorization: Bearer <secret key>` and sets `ctx.state.environment`. */
export function createSecretKeyAuth(matcher: KeyMatcher): Middleware {
  return async function secretKeyAuth(ctx, next) {
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      fail('unauthorized', 'Missing secret key: send "Authorization: Bearer <secret key>".');
    }
    const env = matcher.match(match[1]);
    if (!env) fail('unauthorized', 'The secret key is not valid.');
    ctx.state.environment = env;
    await next();
  };
}
