import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Without SERVICE_ENCRYPTION_KEY, a SQLite store gets a key file beside the database so data
 * stays readable across restarts on a developer's machine. Production sets the variable.
 */
export function devEncryptionKey(databasePath: string): { key: string; file: string; created: boolean } {
  const file = join(dirname(databasePath), 'encryption.key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file, created: false };
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, key + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key, file, created: true };
}
