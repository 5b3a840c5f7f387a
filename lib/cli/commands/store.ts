import type { Storage } from '../../storage/index.js';
import type { Command } from '../command.js';
import { CliError, exitCodes, usageError } from '../exit.js';

const usage = 'Usage: portico store copy --from <store-url> --to <store-url> [--into-non-empty]';

/** `portico store copy`: moves a gateway's data from one store to another (SQLite → PostgreSQL, …). */
export const storeCommand: Command = {
  name: 'store',
  summary: 'Copy everything a gateway keeps from one store URL to another (portico store copy)',
  args: 'copy',
  options: {
    from: {
      type: 'string',
      value: '<url>',
      description: 'the store to read: sqlite://…, redis://…, postgres://… (as SERVICE_STORE_URL)',
    },
    to: { type: 'string', value: '<url>', description: 'the store to write' },
    'into-non-empty': {
      type: 'boolean',
      description: 'write even though the target already holds data (to finish a copy that was cut short)',
    },
  },
  details: `
Copies integrations, connections, records, settings, script state and logs, and the indexes that
list them. Values are copied as stored: sealed credentials stay sealed, no encryption key is read,
and the gateways on the target need the same SERVICE_ENCRYPTION_KEY as on the source. Values with a
time to live keep what is left of it. Not copied: background jobs in flight (schedules are set again
when a gateway starts) and the webhook delivery history. Stop the gateways on the source first, so
nothing changes during the copy.

A target that already holds data is refused unless --into-non-empty is given. Every write is an
overwrite, so a copy cut short can be run again with --into-non-empty.

Example: portico store copy --from sqlite://./data/portico.db --to postgres://portico@db:5432/portico

Exit codes: 0 copied, 1 the target is not empty or a store failed, 2 usage error.`,
  async run({ reporter, values, positionals }) {
    if (positionals[0] !== 'copy' || positionals.length !== 1) throw usageError(usage);
    const from = typeof values.from === 'string' ? values.from : undefined;
    const to = typeof values.to === 'string' ? values.to : undefined;
    if (!from || !to) throw usageError(`--from and --to are both required.\n${usage}`);
    // Loaded here: the storage drivers would slow every other command's start.
    const { storageFromUrl, parseStorageUrl } = await import('../../../adapters/storage/index.js');
    const { copyStore, holdsData } = await import('../../storage/index.js');
    for (const [flag, url] of [
      ['--from', from],
      ['--to', to],
    ] as const) {
      let kind: string;
      try {
        kind = parseStorageUrl(url).kind;
      } catch (error) {
        throw usageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (kind === 'memory')
        throw usageError(`${flag}: a memory:// store lives in one process only; there is nothing to copy from or into`);
    }
    if (from.trim() === to.trim()) throw usageError('--from and --to name the same store');
    const source = storageFromUrl(from, { shortLived: true });
    const target = storageFromUrl(to, { shortLived: true });
    try {
      if (!values['into-non-empty'] && (await failing(() => holdsData(target), 'the target'))) {
        throw new CliError(
          exitCodes.failed,
          'target_not_empty',
          'The target store already holds data: nothing was copied. Copy into an empty store, or pass --into-non-empty to finish an earlier copy.',
        );
      }
      let shown = { what: '', copied: 0 };
      const report = await failing(
        () =>
          copyStore(source, target, (p) => {
            // A line when a namespace starts and then every 5,000 values: progress, not noise.
            const what = p.kind === 'index' ? 'index entries' : p.namespace;
            if (what === shown.what && p.copied - shown.copied < 5_000) return;
            reporter.progress(`${what}: ${p.copied} copied`);
            shown = { what, copied: p.copied };
          }),
        'the copy',
      );
      const keys = report.namespaces.reduce((n, s) => n + s.keys, 0);
      reporter.result({ ok: true, ...report });
      for (const n of report.namespaces) reporter.text(`${n.namespace}: ${n.keys}`);
      reporter.text(
        `Copied ${keys} values in ${report.namespaces.length} namespaces and ${report.indexEntries} index entries.`,
      );
      return exitCodes.ok;
    } finally {
      await close(source);
      await close(target);
    }
  },
};

/** A store failure ends the command with exit 1 and the driver's message (it names no secret: URLs are never in it). */
async function failing<T>(work: () => Promise<T>, what: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      exitCodes.failed,
      'store_failed',
      `${what} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function close(storage: Storage): Promise<void> {
  await storage.close().catch(() => undefined);
}
