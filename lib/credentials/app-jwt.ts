import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

export interface AppJwtSigner {
  /** An RS256 JWT that authenticates as the app itself: only ever sent to the token exchange. */
  sign(appId: string, privateKeyPem: string): Promise<string>;
}

/** Clocks drift: GitHub's documentation advises an `iat` 60 s in the past. */
const backdateSeconds = 60;
/** From `iat`, under the provider's 10-minute maximum even with the back-dating. */
const lifetimeSeconds = 9 * 60;

/**
 * Signs app JWTs. Parsed keys are kept (parsing a PEM costs more than signing), keyed by a
 * digest of the PEM so a rotated key is picked up at once.
 */
export function createAppJwtSigner(options: { now: () => number; maxKeys?: number }): AppJwtSigner {
  const keys = new Map<string, KeyObject>();
  const max = options.maxKeys ?? 100;
  const keyFor = (pem: string): KeyObject => {
    const id = createHash('sha256').update(pem).digest('base64url');
    let key = keys.get(id);
    if (!key) {
      // The app settings page hands out PKCS#1 ("BEGIN RSA PRIVATE KEY"); node:crypto reads both forms.
      key = createPrivateKey(pem);
      if (keys.size >= max) keys.delete(keys.keys().next().value as string);
      keys.set(id, key);
    }
    return key;
  };
  return {
    sign(appId, pem) {
      const iat = Math.floor(options.now() / 1000) - backdateSeconds;
      return new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
        .setIssuer(appId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + lifetimeSeconds)
        .sign(keyFor(pem));
    },
  };
}
