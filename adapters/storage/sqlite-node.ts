import { createRequire } from 'node:module';
import type { RowShape, SqliteDatabase, SqliteStatement } from './sqlite-driver.js';

/** The part of `node:sqlite` used here (@types/node 20 has no types for it). */
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  setReturnArrays(enabled: boolean): void;
}
interface NodeDatabase {
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): NodeStatement;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => NodeDatabase;
  StatementSync: { prototype: Partial<NodeStatement> };
}

const require = createRequire(import.meta.url);
let loaded: NodeSqliteModule | null | undefined;

/**
 * `node:sqlite`, or null where Node lacks it or lacks what the store uses (before 22.16).
 * Loaded on first use: Node 22 emits "ExperimentalWarning: SQLite is an experimental feature"
 * when the module loads. That one warning, and only while this synchronous `require` runs, is
 * not printed: the store chose the driver, not the user (Node 24 no longer emits it). Every other
 * warning goes through, then and after; a user's own `node:sqlite` import later in the process
 * does not warn again, as Node warns once per process.
 */
function nodeSqlite(): NodeSqliteModule | null {
  if (loaded !== undefined) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteExperimentalWarning(warning, rest[0])) return;
    return Reflect.apply(emitWarning, process, [warning, ...rest]) as void;
  } as typeof process.emitWarning;
  try {
    const module = require('node:sqlite') as NodeSqliteModule;
    loaded = typeof module.StatementSync.prototype.setReturnArrays === 'function' ? module : null;
  } catch {
    loaded = null;
  } finally {
    process.emitWarning = emitWarning;
  }
  return loaded;
}

function isSqliteExperimentalWarning(warning: string | Error, typeOrOptions: unknown): boolean {
  const message = typeof warning === 'string' ? warning : warning.message;
  const type =
    typeof typeOrOptions === 'string'
      ? typeOrOptions
      : ((typeOrOptions as { type?: string } | undefined)?.type ?? (typeof warning === 'string' ? '' : warning.name));
  return type === 'ExperimentalWarning' && message.startsWith('SQLite is an experimental feature');
}

export function nodeSqliteAvailable(): boolean {
  return nodeSqlite() !== null;
}

export function openNodeSqlite(path: string, readonly: boolean): SqliteDatabase {
  const module = nodeSqlite();
  if (!module) throw new Error(`node:sqlite is not available on Node ${process.versions.node} (needs 22.16 or later)`);
  const db = new module.DatabaseSync(path, { readOnly: readonly });
  const control = (sql: string) => {
    let statement: NodeStatement | undefined;
    return () => {
      statement ??= db.prepare(sql);
      statement.run();
    };
  };
  const begin = control('BEGIN');
  const commit = control('COMMIT');
  const rollback = control('ROLLBACK');
  const savepoint = control('SAVEPOINT portico_nested');
  const release = control('RELEASE portico_nested');
  const rollbackTo = control('ROLLBACK TO portico_nested');

  return {
    driver: 'node:sqlite',
    name: path,
    get open() {
      return db.isOpen;
    },
    get inTransaction() {
      return db.isOpen && db.isTransaction;
    },
    exec(sql) {
      db.exec(sql);
    },
    prepare<P extends unknown[], R>(sql: string, shape: RowShape = 'rows') {
      return shaped<P, R>(db.prepare(sql), shape);
    },
    // better-sqlite3's semantics: BEGIN … COMMIT, or a savepoint inside an open transaction; on a
    // throw (a failed COMMIT included) everything of `fn` is rolled back, so retrying is safe.
    transaction<A extends unknown[], T>(fn: (...args: A) => T) {
      return (...args: A): T => {
        const nested = db.isTransaction;
        if (nested) savepoint();
        else begin();
        try {
          const result = fn(...args);
          if (nested) release();
          else commit();
          return result;
        } catch (error) {
          if (db.isTransaction) {
            if (nested) {
              rollbackTo();
              release();
            } else rollback();
          }
          throw error;
        }
      };
    },
    close() {
      db.close();
    },
  };
}

function shaped<P extends unknown[], R>(statement: NodeStatement, shape: RowShape): SqliteStatement<P, R> {
  if (shape === 'rows') return statement as unknown as SqliteStatement<P, R>;
  statement.setReturnArrays(true);
  if (shape === 'arrays') return statement as unknown as SqliteStatement<P, R>;
  return {
    run: (...params) => statement.run(...params),
    get: (...params) => (statement.get(...params) as unknown[] | undefined)?.[0] as R | undefined,
    all: (...params) => (statement.all(...params) as unknown[][]).map((row) => row[0] as R),
  };
}
