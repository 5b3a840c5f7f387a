import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { RowShape, SqliteDatabase, SqliteStatement } from './sqlite-driver.js';

// Loaded on first use, not at import: on Node 24.19+ the store never touches the addon, and a
// missing or mismatched build must not stop a process that does not use SQLite.
const require = createRequire(import.meta.url);
let probed: true | Error | undefined;

/** Loads better-sqlite3 and its addon once: `true`, or why it cannot be used. */
export function probeBetterSqlite(): true | Error {
  if (probed === undefined) {
    try {
      // The package loads its native addon on the first open, so open one.
      new (load())(':memory:').close();
      probed = true;
    } catch (error) {
      probed = error instanceof Error ? error : new Error(String(error));
    }
  }
  return probed;
}

function load(): typeof BetterSqlite3 {
  return require('better-sqlite3') as typeof BetterSqlite3;
}

export function openBetterSqlite(path: string, readonly: boolean): SqliteDatabase {
  const db = new (load())(path, { readonly });
  return {
    driver: 'better-sqlite3',
    name: path,
    get open() {
      return db.open;
    },
    get inTransaction() {
      return db.inTransaction;
    },
    exec(sql) {
      db.exec(sql);
    },
    prepare<P extends unknown[], R>(sql: string, shape: RowShape = 'rows') {
      const statement = db.prepare<P, R>(sql);
      if (shape === 'arrays') statement.raw(true);
      else if (shape === 'first') statement.pluck(true);
      // better-sqlite3's statements already have the port's shape: no wrapper on the hot path.
      return statement as unknown as SqliteStatement<P, R>;
    },
    transaction: (fn) => db.transaction(fn),
    close() {
      db.close();
    },
  };
}
