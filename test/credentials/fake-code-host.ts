import { createPublicKey, verify } from 'node:crypto';
import type { Test } from 'tap';
import { fakeProvider } from '../helpers/http.js';

export interface AppClaims {
  iss: unknown;
  iat: number;
  exp: number;
}

/**
 * A fake code host. The token exchange verifies the app's JWT with node:crypto alone (not jose,
 * which signs it) and only then issues an installation token; the API accepts only those tokens.
 */
export async function fakeCodeHost(
  t: Test,
  options: { appId: string; publicKey: string; installations: string[]; now?: () => number },
) {
  const now = options.now ?? Date.now;
  const publicKey = createPublicKey(options.publicKey);
  const issued = new Map<string, number>();
  const claims: AppClaims[] = [];
  const state = { lifetimeMs: 3600_000, mints: 0, delayMs: 0 };

  const checkJwt = (authorization: string | undefined): AppClaims | string => {
    const jwt = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const [header, payload, signature] = jwt?.split('.') ?? [];
    if (!header || !payload || !signature) return 'A JSON web token could not be decoded';
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string };
    if (head.alg !== 'RS256') return 'alg must be RS256';
    if (!verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))) {
      return 'signature does not verify';
    }
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString()) as AppClaims;
    const seconds = Math.floor(now() / 1000);
    if (String(body.iss) !== options.appId) return "'Issuer' claim ('iss') must be the app id";
    if (!(body.iat <= seconds) || !(body.exp > seconds) || body.exp - body.iat > 600)
      return "'Expiration time' claim ('exp') is too far in the future";
    return body;
  };

  const server = await fakeProvider(async (req, res) => {
    res.setHeader('content-type', 'application/json');
    const mint = /^\/app\/installations\/([^/]+)\/access_tokens$/.exec(req.url);
    if (req.method === 'POST' && mint) {
      const checked = checkJwt(req.headers.authorization);
      if (typeof checked === 'string') {
        res.statusCode = 401;
        res.end(JSON.stringify({ message: checked }));
        return;
      }
      claims.push(checked);
      if (!options.installations.includes(mint[1] as string)) {
        res.statusCode = 404;
        res.end(JSON.stringify({ message: 'Not Found' }));
        return;
      }
      if (state.delayMs) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      const token = `ghs_installation_${++state.mints}`;
      const expiresAt = now() + state.lifetimeMs;
      issued.set(token, expiresAt);
      res.statusCode = 201;
      res.end(
        JSON.stringify({
          token,
          expires_at: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z'),
          repository_selection: 'selected',
        }),
      );
      return;
    }
    const token = /^(?:Bearer|token) (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiry = token === undefined ? undefined : issued.get(token);
    if (expiry === undefined || expiry <= now()) {
      res.statusCode = 401;
      res.end(JSON.stringify({ message: 'Bad credentials' }));
      return;
    }
    res.end(JSON.stringify({ total_count: 1, repositories: [{ name: 'portico' }] }));
  });
  t.teardown(() => server.close());
  return { ...server, claims, state, mintCalls: () => server.received.filter((r) => r.method === 'POST').length };
}
