import { openBetterSqlite, probeBetterSqlite } from './sqlite-better.js';
import { nodeSqliteAvailable, openNodeSqlite } from './sqlite-node.js';

/**
 * The SQLite store runs on one of two drivers with the same synchronous API:
 * - `better-sqlite3` (a native addon; the only one on Node 20);
 * - `node:sqlite` (Node's built-in `DatabaseSync`, from Node 22.16: `setReturnArrays`,
 *   `isTransaction`).
 * `auto` takes `node:sqlite` on Node 24.19 and later: better-sqlite3 12 compiled against those
 * headers aborts the process when V8 collects a prepared statement from a GC callback
 * (`RemoveEnvironmentCleanupHook`, nodejs/node#65446), and Node 24 prints no ExperimentalWarning
 * for `node:sqlite`. Before 24.19 it takes better-sqlite3, falling back to `node:sqlite` when the
 * addon cannot be loaded (not built, built for another Node).
 */
export type SqliteDriver = 'better-sqlite3' | 'node:sqlite';

/** What the SQLite adapters need of a driver: a subset both provide (like kysely's `SqliteDatabase`). */
export interface SqliteDatabase {
  readonly driver: SqliteDriver;
  /** The path it was opened with. */
  readonly name: string;
  readonly open: boolean;
  readonly inTransaction: boolean;
  exec(sql: string): void;
  /**
   * `rows` gives objects; `arrays` gives each row as an array (no object per row: a third of a
   * page's cost); `first` gives the first column's value alone.
   */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string, shape?: RowShape): SqliteStatement<P, R>;
  /** `fn` wrapped in BEGIN/COMMIT (a SAVEPOINT when already in a transaction); rolled back if it throws. */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
  close(): void;
}

export type RowShape = 'rows' | 'arrays' | 'first';

export interface SqliteStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): { changes: number | bigint };
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

export interface OpenOptions {
  /** Default `auto` (see `SqliteDriver`). */
  driver?: SqliteDriver | 'auto' | undefined;
  readonly?: boolean;
}

/** The first Node release whose headers make better-sqlite3 12 abort (see `SqliteDriver`). */
const NODE_HEADERS_ABORT = [24, 19] as const;

/** Whether better-sqlite3 12 built for this Node version aborts the process (see `SqliteDriver`). */
function betterSqliteAborts(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [abortMajor, abortMinor] = NODE_HEADERS_ABORT;
  return major > abortMajor || (major === abortMajor && minor >= abortMinor);
}

/** What the choice asks of this Node; replaced in tests. */
export interface DriverProbes {
  nodeSqlite(): boolean;
  betterSqlite(): true | Error;
}
const realProbes: DriverProbes = { nodeSqlite: nodeSqliteAvailable, betterSqlite: probeBetterSqlite };

/** The driver `auto` takes on this Node. */
export function chooseSqliteDriver(version = process.versions.node, probes = realProbes): SqliteDriver {
  if (betterSqliteAborts(version) && probes.nodeSqlite()) return 'node:sqlite';
  const better = probes.betterSqlite();
  if (better === true) return 'better-sqlite3';
  if (probes.nodeSqlite()) return 'node:sqlite';
  throw new Error(
    `No SQLite driver on Node ${version}: better-sqlite3 did not load (${better.message}) and node:sqlite needs Node 22.16 or later`,
  );
}

/**
 * The drivers `auto` may take on this Node, the one it takes first (the tests run the contract
 * on each). better-sqlite3 is left out where it would abort, not only where it fails to load.
 */
export function usableSqliteDrivers(): SqliteDriver[] {
  const drivers: SqliteDriver[] = [];
  if (!betterSqliteAborts(process.versions.node) && probeBetterSqlite() === true) drivers.push('better-sqlite3');
  if (nodeSqliteAvailable()) drivers.push('node:sqlite');
  const auto = chooseSqliteDriver();
  return [auto, ...drivers.filter((d) => d !== auto)];
}

export function openSqliteDatabase(path: string, options: OpenOptions = {}): SqliteDatabase {
  const driver = !options.driver || options.driver === 'auto' ? chooseSqliteDriver() : options.driver;
  const readonly = options.readonly ?? false;
  return driver === 'node:sqlite' ? openNodeSqlite(path, readonly) : openBetterSqlite(path, readonly);
}
