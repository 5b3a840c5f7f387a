import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { fail } from '../errors.js';
import type { HttpContext } from '../http/context.js';
import type { Environment } from './environment.js';

export interface KeyMatcher {
  /** The environment whose secret key equals `presented`, compared in constant time. */
  match(presented: string): Environment | undefined;
  /** The environment whose secret key or deploy key equals `presented`, and which of the two it is. */
  identify(presented: string): { env: Environment; role: KeyRole } | undefined;
}

/** `deploy`: the environment's deploy key, which opens `POST /scripts/deploy` and nothing else. */
export type KeyRole = 'secret' | 'deploy';

/** The one route a deploy key opens. */
export const deployRoute = { method: 'POST', path: '/scripts/deploy' } as const;

/**
 * Every key is compared (no early exit across environments), each with `timingSafeEqual`, so
 * the time taken says nothing about how much of a key was right. Only whether the lengths
 * match can show: the length of a key is not secret (generated keys all have the same one).
 * No hash on the way: at one comparison per proxied call, hashing cost more than the rest of
 * the check together.
 */
export function createKeyMatcher(environments: readonly Environment[]): KeyMatcher {
  const table = environments.flatMap((env) => [
    { env, role: 'secret' as const, key: Buffer.from(env.secretKey, 'utf8') },
    ...(env.deployKey ? [{ env, role: 'deploy' as const, key: Buffer.from(env.deployKey, 'utf8') }] : []),
  ]);
  const identify = (presented: string) => {
    const candidate = Buffer.from(presented, 'utf8');
    let found: { env: Environment; role: KeyRole } | undefined;
    for (const entry of table) {
      if (entry.key.length === candidate.length && timingSafeEqual(entry.key, candidate))
        found = { env: entry.env, role: entry.role };
    }
    return found;
  };
  return {
    match(presented) {
      const found = identify(presented);
      return found?.role === 'secret' ? found.env : undefined;
    },
    identify,
  };
}

const bearer = /^Bearer\s+(\S+)\s*$/i;

/** Checks `Authorization: Bearer <secret key>` and sets `ctx.state.environment`; 401 otherwise. */
export type Authenticate = (ctx: HttpContext) => Environment;

export function createAuthenticate(matcher: KeyMatcher): Authenticate {
  return function authenticate(ctx) {
    const header = ctx.req.headers.authorization;
    const match = header === undefined ? null : bearer.exec(header);
    if (!match?.[1]) {
      fail('unauthorized', 'Missing secret key: send "Authorization: Bearer <secret key>".');
    }
    const found = matcher.identify(match[1]) ?? fail('unauthorized', 'The secret key is not valid.');
    if (found.role === 'deploy' && !(ctx.method === deployRoute.method && ctx.path === deployRoute.path)) {
      fail(
        'unauthorized',
        "A deploy key only deploys scripts (POST /scripts/deploy); send the environment's secret key.",
      );
    }
    ctx.state.environment = found.env;
    ctx.state.keyRole = found.role;
    return found.env;
  };
}

/** Requires `Authorization: Bearer <secret key>` and sets `ctx.state.environment`. */
export function createSecretKeyAuth(authenticate: Authenticate): Middleware {
  return function secretKeyAuth(ctx, next) {
    authenticate(ctx);
    return next();
  };
}
