import { createCipher, parseEncryptionKeys, type Cipher } from '../../crypto/index.js';
import type { Command } from '../command.js';
import { CliError, exitCodes, usageError } from '../exit.js';

/** `portico keys reseal`: the end of a key rotation, run against the store itself. */
export const keysCommand: Command = {
  name: 'keys',
  summary: 'Re-seal stored credentials under the current encryption key (portico keys reseal)',
  args: 'reseal',
  options: {
    environments: {
      type: 'string',
      value: '<names>',
      description: 'comma-separated environment names (default: $SERVICE_ENVIRONMENTS, else dev)',
    },
  },
  details: `
Reads SERVICE_STORE_URL and SERVICE_ENCRYPTION_KEY as the server does. Every credential, integration
secret and webhook signing key sealed under an older key (any key after the first) is sealed again
under the first one, under the same locks the gateway writes with. Safe to stop and run again: what
is already current is only read. When it reports nothing unreadable, drop the old key from
SERVICE_ENCRYPTION_KEY. With a Redis store it may run while gateways serve; with SQLite, stop the
gateway first (its locks are in its own process). A gateway started with several keys runs the same
pass in the background.

Exit codes: 0 done, 1 some values open with no configured key (listed), 2 usage error.`,
  async run({ io, reporter, values, positionals }) {
    if (positionals[0] !== 'reseal' || positionals.length !== 1)
      throw usageError('Usage: portico keys reseal [--environments dev,prod]');
    const storeUrl = io.env.SERVICE_STORE_URL || 'sqlite://./data/portico.db';
    const keyText = io.env.SERVICE_ENCRYPTION_KEY;
    if (!keyText)
      throw usageError(
        'SERVICE_ENCRYPTION_KEY is required: the new key first, then the old ones ("k2:<new>,k1:<old>").',
      );
    const names = (typeof values.environments === 'string' ? values.environments : io.env.SERVICE_ENVIRONMENTS || 'dev')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    let cipher: Cipher;
    try {
      cipher = createCipher(parseEncryptionKeys(keyText));
    } catch (error) {
      throw usageError(`SERVICE_ENCRYPTION_KEY: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Loaded here: the storage drivers would slow every other command's start.
    const { storageFromUrl } = await import('../../../adapters/storage/index.js');
    const { resealAll } = await import('../../keys/index.js');
    const storage = storageFromUrl(storeUrl, { shortLived: true });
    try {
      const steps = await resealAll({ storage, cipher, environments: names }, (s) =>
        reporter.progress(
          `${s.environment} ${s.place}: ${s.checked} checked, ${s.resealed} re-sealed${s.unreadable ? `, ${s.unreadable} UNREADABLE` : ''}`,
        ),
      );
      const unreadable = steps.reduce((n, s) => n + s.unreadable, 0);
      if (unreadable > 0)
        throw new CliError(
          exitCodes.failed,
          'unreadable_values',
          `${unreadable} values open with no configured key: keep every old key until they are found.`,
          { steps },
        );
      reporter.result({ ok: true, steps });
      reporter.text(
        'Everything is sealed under the current key: the older keys can be dropped from SERVICE_ENCRYPTION_KEY.',
      );
      return exitCodes.ok;
    } finally {
      await storage.close();
    }
  },
};
