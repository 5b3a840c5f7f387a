import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { GatewayError } from '../../errors.js';
import type { Provider } from '../../providers/index.js';
import { tenantSchema } from '../sessions/session.js';

/** The issuer's published key sets, fetched once per URL and refreshed by jose when a new key id shows up. */
export type KeySets = (jwksUri: string) => JWTVerifyGetKey;

export function createKeySets(): KeySets {
  const byUri = new Map<string, JWTVerifyGetKey>();
  return (uri) => {
    let keys = byUri.get(uri);
    if (!keys) {
      keys = createRemoteJWKSet(new URL(uri), { timeoutDuration: 10_000, cooldownDuration: 30_000 });
      byUri.set(uri, keys);
    }
    return keys;
  };
}

const notProven = (why: string) =>
  new GatewayError(
    'tenant_not_proven',
    `The consenting organization could not be proven: ${why}. Nothing was created.`,
  );

/**
 * The tenant an ID token proves: signature checked against the issuer's published keys, the
 * audience is the integration's client, the nonce is the one this flow sent, and the issuer is
 * the catalog's issuer for that very tenant (multi-tenant issuers carry the tenant in their URL).
 */
export async function tenantFromIdToken(
  keySets: KeySets,
  provider: Provider,
  idToken: unknown,
  clientId: string,
  nonce: string,
): Promise<string> {
  const settings = provider.id_token;
  if (!settings) throw notProven('the provider has no ID token settings');
  if (typeof idToken !== 'string' || idToken === '') throw notProven('the token answer carried no id_token');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(idToken, keySets(settings.jwks_uri), { audience: clientId, clockTolerance: 60 }));
  } catch (error) {
    throw notProven(`the ID token did not verify (${error instanceof Error ? error.message : 'invalid'})`);
  }
  if (payload.nonce !== nonce) throw notProven('the ID token was not issued for this authorization (nonce)');
  const tenant = payload[settings.tenant_claim ?? 'tid'];
  if (typeof tenant !== 'string' || !tenantSchema.safeParse(tenant).success)
    throw notProven('the ID token names no tenant');
  if (payload.iss !== settings.issuer.replace('{tenantid}', tenant))
    throw notProven('the ID token comes from another issuer');
  return tenant;
}
