import { timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { fail } from '../errors.js';
import type { Environment } from './environment.js';

export interface KeyMatcher {
  /** The environment whose secret key equals `presented`, compared in constant time. */
  match(presented: string): Environment | undefined;
}

/**
 * Every key is compared (no early exit across environments), each with `timingSafeEqual`, so
 * the time taken says nothing about how much of a key was right. Only whether the lengths
 * match can show: the length of a key is not secret (generated keys all have the same one).
 * No hash on the way: at one comparison per proxied call, hashing cost more than the rest of
 * the check together.
 */
export function createKeyMatcher(environments: readonly Environment[]): KeyMatcher {
  const table = environments.map((env) => ({ env, key: Buffer.from(env.secretKey, 'utf8') }));
  return {
    match(presented) {
      const candidate = Buffer.from(presented, 'utf8');
      let found: Environment | undefined;
      for (const entry of table) {
        if (entry.key.length === candidate.length && timingSafeEqual(entry.key, candidate)) found = entry.env;
      }
      return found;
    },
  };
}

const bearer = /^Bearer\s+(\S+)\s*$/i;

/** Checks `Authorization: Bearer <secret key>` and sets `ctx.state.environment`; 401 otherwise. */
export type Authenticate = (ctx: Context) => Environment;

export function createAuthenticate(matcher: KeyMatcher): Authenticate {
  return function authenticate(ctx) {
    const header = ctx.req.headers.authorization;
    const match = header === undefined ? null : bearer.exec(header);
    if (!match?.[1]) {
      fail('unauthorized', 'Missing secret key: send "Authorization: Bearer <secret key>".');
    }
    const env = matcher.match(match[1]) ?? fail('unauthorized', 'The secret key is not valid.');
    ctx.state.environment = env;
    return env;
  };
}

/** Requires `Authorization: Bearer <secret key>` and sets `ctx.state.environment`. */
export function createSecretKeyAuth(authenticate: Authenticate): Middleware {
  return function secretKeyAuth(ctx, next) {
    authenticate(ctx);
    return next();
  };
}
