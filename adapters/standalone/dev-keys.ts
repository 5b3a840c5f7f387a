import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface DevKey {
  key: string;
  file: string;
  created: boolean;
}

/**
 * A key kept in a file (mode 0600) beside the SQLite database, made on first use, so a
 * developer's data and tools keep working across restarts. Production sets the variables.
 */
function keyFile(databasePath: string, name: string, make: () => string): DevKey {
  const file = join(dirname(databasePath), name);
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file, created: false };
  mkdirSync(dirname(file), { recursive: true });
  const key = make();
  writeFileSync(file, key + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key, file, created: true };
}

/** Without SERVICE_ENCRYPTION_KEY: `encryption.key` beside the database. */
export function devEncryptionKey(databasePath: string): DevKey {
  return keyFile(databasePath, 'encryption.key', () => randomBytes(32).toString('base64'));
}

/** A secret key of the environment's own, `sk_<env>_…`. */
export const newSecretKey = (environment: string) => `sk_${environment}_${randomBytes(24).toString('base64url')}`;

/** Without SERVICE_SECRET_KEY[_<ENV>]: `secret-key.<env>` beside the database. */
export function devSecretKey(databasePath: string, environment: string): DevKey {
  return keyFile(databasePath, `secret-key.${environment}`, () => newSecretKey(environment));
}
