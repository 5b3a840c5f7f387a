import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Runs in the second process: takes the write lock, says so, holds it, then commits. */
const lockerSource = `
const Database = require('better-sqlite3');
const [path, holdMs] = process.argv.slice(1);
const db = new Database(path, { timeout: 10000 });
db.exec('CREATE TABLE IF NOT EXISTS locker (n INTEGER)');
db.exec('BEGIN IMMEDIATE');
db.prepare('INSERT INTO locker VALUES (1)').run();
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
): Promise<{ child: ChildProcess; released: Promise<void> }> {
  const child = spawn(process.execPath, ['-e', lockerSource, path, String(holdMs)], {
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
