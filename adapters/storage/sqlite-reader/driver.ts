import { preparePositions, type Position } from '../ordered/sqlite-positions.js';
import { openSqliteDatabase, type SqliteDriver } from '../sqlite-driver.js';

/**
 * The page reader's one use of the SQLite driver: a read-only connection to the gateway's file
 * (WAL lets it read while the gateway's own connection writes) and the few statements a page
 * needs, on the same driver as the gateway's connection (sqlite-driver.ts).
 */
export interface ReadConnection {
  positions(namespace: string, list: string, limit: number, after?: Position, reverse?: boolean): Position[];
  /** The stored text under each key, undefined where there is none (or it has expired). */
  values(namespace: string, keys: readonly string[]): (string | undefined)[];
  /** Opens a read transaction: what follows reads one snapshot until `end`. */
  begin(): void;
  end(): void;
  close(): void;
}

export function openReadConnection(path: string, driver: SqliteDriver): ReadConnection {
  const db = openSqliteDatabase(path, { driver, readonly: true });
  // Waiting here blocks only this worker's thread, never the gateway's.
  db.exec('PRAGMA busy_timeout = 1000');
  const positions = preparePositions(db);
  const s = {
    value: db.prepare<[string, string, number], string>(
      'SELECT value FROM portico_kv WHERE namespace = ? AND key = ? AND (expires IS NULL OR expires > ?)',
      'first',
    ),
    begin: db.prepare('BEGIN'),
    commit: db.prepare('COMMIT'),
  };
  return {
    positions,
    values(namespace, keys) {
      const now = Date.now();
      return keys.map((key) => s.value.get(namespace, key, now));
    },
    begin: () => s.begin.run(),
    end: () => {
      if (db.inTransaction) s.commit.run();
    },
    close: () => db.close(),
  };
}
