import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { SqliteDriver } from '../../adapters/storage/index.js';

/** Runs in the second process, on the driver given: takes the write lock, says so, holds it, then commits. */
const lockerSource = `
const [path, holdMs, driver] = process.argv.slice(1);
const db = driver === 'node:sqlite'
  ? new (require('node:sqlite').DatabaseSync)(path, { timeout: 10000 })
  : new (require('better-sqlite3'))(path, { timeout: 10000 });
db.exec('CREATE TABLE IF NOT EXISTS locker (n INTEGER)');
db.exec('BEGIN IMMEDIATE');
db.exec('INSERT INTO locker VALUES (1)');
process.stdout.write('locked\\n');
setTimeout(() => { db.exec('COMMIT'); db.close(); process.stdout.write('released\\n'); }, Number(holdMs));
`;

/**
 * A second process holding the SQLite file's write lock for `holdMs`, as another tool (a backup,
 * a migration, a second gateway) would. Resolves once the lock is held; `released` resolves
 * when it is let go.
 */
export async function lockSqliteFile(
  path: string,
  holdMs: number,
  driver: SqliteDriver,
): Promise<{ child: ChildProcess; released: Promise<void> }> {
  // --no-warnings in this helper process only: Node 22 warns that node:sqlite is experimental.
  const child = spawn(process.execPath, ['--no-warnings', '-e', lockerSource, path, String(holdMs), driver], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(word)) resolve();
      };
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        check();
      });
      child.once('exit', () =>
        out.includes(word) ? resolve() : reject(new Error(`the locker exited before "${word}"`)),
      );
    });
  const locked = said('locked');
  const released = said('released').then(async () => {
    if (child.exitCode === null) await once(child, 'exit');
  });
  await locked;
  return { child, released };
}
