import { generateKeyPairSync } from 'node:crypto';

/** An RSA key pair in PEM, like the private key a code-hosting app's settings page hands out. */
export function appKeyPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
}
