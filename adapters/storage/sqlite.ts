import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { deserialize, storedValue } from './deserialize.js';
import { serialize } from './serialize.js';
import Keyv, { type KeyvStoreAdapter, type StoredData } from 'keyv';
import { collectPage, type PageRequest, type Storage } from '../../lib/storage/index.js';
import { sqliteInventory } from './inventory/sqlite.js';
import { createMemoryCoordinator } from './memory-coordinator.js';
import { createSqliteOrderedIndexes } from './ordered/sqlite.js';
import { createKeyvQueue } from './queue/keyv-queue.js';
import { atomic, createGroupCommit, type GroupCommit } from './sqlite-commit.js';
import { createSqliteCheckpointer, type CheckpointerOptions } from './sqlite-checkpoint/index.js';
import { createSqlitePageReader } from './sqlite-reader/index.js';
import { defaultBusyWaitMs, retryBusy, sqliteBusyTimeoutMs, type BusyOptions } from './sqlite-busy.js';
import { openSqliteDatabase, type SqliteDatabase, type SqliteDriver } from './sqlite-driver.js';

type Db = SqliteDatabase;
type Entry = { key: string; value: unknown; ttl?: number };

/** Expired rows are invisible at once; deleting them is batched, at most this often, on a write. */
const SWEEP_INTERVAL_MS = 60_000;
/** The page cache of the gateway's connection, by default: a bound on memory whatever the file's size. */
export const defaultSqliteCacheMiB = 64;
/** Rows fetched per page when iterating, so the caller may write to the db between pages. */
const ITERATOR_PAGE = 100;

/**
 * Prepared statements over one key–value table, shared by the adapters of every namespace
 * (preparing per namespace would cost a compile per `keyv()` call and buy nothing).
 * The namespace is its own column, so clearing one namespace is one indexed DELETE.
 */
export class SqliteKeyvTable {
  private lastSweep = 0;
  private readonly stmts: Statements;
  /** Set by `createSqliteStorage`: writes then share one commit per event-loop turn. */
  commits: GroupCommit | undefined;

  constructor(readonly db: Db) {
    this.stmts = prepareStatements(db);
    this.txns = this.transactions();
    this.sweepExpired();
  }

  get(namespace: string, key: string): string | undefined {
    return this.stmts.get.get(namespace, key, Date.now());
  }

  /** One read transaction: one snapshot and one lock for the whole batch. */
  getMany = (namespace: string, keys: string[]): Array<string | undefined> => this.txns.getMany(namespace, keys);

  has(namespace: string, key: string, now = Date.now()): boolean {
    return this.stmts.has.get(namespace, key, now) !== undefined;
  }

  /** Every write of the batch in ONE transaction: one fsync instead of one per key. */
  setMany = (namespace: string, entries: Entry[]): void => this.txns.setMany(namespace, entries);

  deleteMany = (namespace: string, keys: string[]): number => this.txns.deleteMany(namespace, keys);

  /** Built once: a driver's `transaction()` makes wrappers per call. */
  private readonly txns: ReturnType<SqliteKeyvTable['transactions']>;

  private transactions() {
    const read = (namespace: string, keys: string[]) => {
      const now = Date.now();
      return keys.map((key) => this.stmts.get.get(namespace, key, now));
    };
    const snapshot = this.db.transaction(read);
    return {
      // One snapshot for the batch: an open transaction (the turn's, or a caller's) already is one.
      getMany: (namespace: string, keys: string[]) =>
        this.db.inTransaction ? read(namespace, keys) : snapshot(namespace, keys),
      setMany: atomic(
        this.db,
        () => this.commits,
        (namespace: string, entries: Entry[]) => {
          const now = Date.now();
          this.maybeSweep(now);
          for (const { key, value, ttl } of entries) {
            this.stmts.set.run(namespace, key, asText(value), expiresAt(now, ttl));
          }
        },
      ),
      deleteMany: atomic(
        this.db,
        () => this.commits,
        (namespace: string, keys: string[]) => {
          let deleted = 0;
          for (const key of keys) deleted += Number(this.stmts.delete.run(namespace, key).changes);
          return deleted;
        },
      ),
    };
  }

  clear(namespace: string): void {
    this.stmts.clear.run(namespace);
  }

  /** Live rows of a namespace in key order, `size` at a time, starting after `afterKey`. */
  page(namespace: string, afterKey: string, size: number): Array<{ key: string; value: string }> {
    return this.stmts.page.all(namespace, afterKey, Date.now(), size);
  }

  sweepExpired(now = Date.now()): void {
    this.stmts.sweep.run(now);
    this.lastSweep = now;
  }

  private maybeSweep(now: number): void {
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS) this.sweepExpired(now);
  }
}

/**
 * Keyv 5 store adapter for one namespace of a `SqliteKeyvTable`. Keyv sets `namespace` on the
 * adapter it is given, so every Keyv needs its own (cheap) adapter. Use it with
 * `useKeyPrefix: false`: the namespace column already separates namespaces.
 * It does not own the database, so it has no `disconnect`; whoever opened the db closes it.
 */
export class KeyvBetterSqlite extends EventEmitter implements KeyvStoreAdapter {
  namespace?: string | undefined;
  /** `dialect` is how Keyv recognises an iterable adapter; `url` is read when it does not. */
  readonly opts: { dialect: 'sqlite'; url: string };

  constructor(
    readonly table: SqliteKeyvTable,
    namespace?: string,
    /** Contention is waited out asynchronously, up to this long (sqlite-busy.ts). */
    private readonly busyWaitMs = defaultBusyWaitMs,
  ) {
    super();
    this.namespace = namespace;
    this.opts = { dialect: 'sqlite', url: `sqlite://${table.db.name}` };
  }

  private busy<T>(work: () => T): Promise<T> {
    return retryBusy(work, this.busyWaitMs);
  }

  private write<T>(work: () => T): Promise<T> {
    return this.table.commits ? this.table.commits.write(work) : this.busy(work);
  }

  private get ns(): string {
    return this.namespace ?? '';
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    // Keyv hands us, and gets back, its serialized string; the cast only satisfies the generic.
    return this.busy(() => this.table.get(this.ns, key)) as Promise<StoredData<Value> | undefined>;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return this.busy(() => this.table.getMany(this.ns, keys)) as Promise<Array<StoredData<Value | undefined>>>;
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    await this.write(() => this.table.setMany(this.ns, [ttl === undefined ? { key, value } : { key, value, ttl }]));
    return true;
  }

  /**
   * Keyv's adapter type says `void`, but `Keyv.setMany` returns whatever this returns as its
   * `boolean[]`; returning nothing would hand callers `undefined`. Hence the cast.
   */
  async setMany(entries: Entry[]): Promise<void> {
    await this.write(() => this.table.setMany(this.ns, entries));
    return entries.map(() => true) as unknown as void;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.write(() => this.table.deleteMany(this.ns, [key]))) > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return (await this.write(() => this.table.deleteMany(this.ns, keys))) > 0;
  }

  async clear(): Promise<void> {
    await this.write(() => this.table.clear(this.ns));
  }

  async has(key: string): Promise<boolean> {
    return this.busy(() => this.table.has(this.ns, key));
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    const now = Date.now();
    return this.busy(() => keys.map((key) => this.table.has(this.ns, key, now)));
  }

  // Paged rather than one live cursor: the drivers refuse or disturb writes while a statement iterates.
  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    const ns = namespace ?? this.ns;
    let after = '';
    for (;;) {
      const rows = await this.busy(() => this.table.page(ns, after, ITERATOR_PAGE));
      for (const row of rows) yield [row.key, row.value as Awaited<Value>];
      const last = rows.at(-1);
      if (!last || rows.length < ITERATOR_PAGE) return;
      after = last.key;
    }
  }
}

/**
 * One SQLite file for everything. Not `shared`: one process owns the file (WAL allows readers in
 * other processes, but locks and counters live in this process's memory coordinator).
 */
export function createSqliteStorage(
  options: {
    path: string;
    groupCommit?: boolean;
    /** `auto` (default): node:sqlite on Node 24.19+, else better-sqlite3 (sqlite-driver.ts). */
    driver?: SqliteDriver | 'auto';
    /** Listing pages read on a worker thread (sqlite-reader/); false reads them on the caller's. Default true (never for `:memory:`). */
    pageReader?: boolean;
    /**
     * SQLite's page cache for the gateway's connection, in MiB (default 64; SQLite's own is 2).
     * An import reads B-tree pages at random places of the file (a new id, an end user's list,
     * search words): past a few hundred thousand connections, a 2 MiB cache sends most of those
     * reads to the kernel. The cache is filled on demand and never grows past this.
     */
    cacheMiB?: number;
    /**
     * WAL checkpoints on a worker thread (sqlite-checkpoint/), not on the gateway's thread after a
     * commit; false keeps SQLite's default. Default true (never for `:memory:`).
     */
    checkpoints?: boolean | CheckpointerOptions;
  } & BusyOptions,
): Storage {
  const { path } = options;
  const busyWaitMs = options.busyWaitMs ?? defaultBusyWaitMs;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = openSqliteDatabase(path, { driver: options.driver });
  db.exec('PRAGMA journal_mode = WAL');
  // NORMAL under WAL: a power cut may lose the last commits but never corrupts the file.
  db.exec('PRAGMA synchronous = NORMAL');
  // Negative: a size in KiB rather than in pages.
  db.exec(`PRAGMA cache_size = -${Math.max(1, Math.round((options.cacheMiB ?? defaultSqliteCacheMiB) * 1024))}`);
  // Opening may wait (once, at start) for another process; after that SQLite never sleeps on the event loop.
  db.exec('PRAGMA busy_timeout = 5000');
  const table = new SqliteKeyvTable(db);
  db.exec(`PRAGMA busy_timeout = ${sqliteBusyTimeoutMs}`);
  const checkpoints = options.checkpoints ?? true;
  const groupCommit = options.groupCommit !== false;
  // The worker starts once the store has committed a while (at once without group commit, which
  // does not count): a store that barely writes, or a short test, runs no thread for it.
  const checkpointer =
    path !== ':memory:' && checkpoints !== false
      ? createSqliteCheckpointer(db, db.driver, {
          startAfterCommits: groupCommit ? 100 : 0,
          ...(checkpoints === true ? {} : checkpoints),
        })
      : undefined;
  const commits = createGroupCommit(db, busyWaitMs, checkpointer && (() => checkpointer.committed()));
  // groupCommit: false commits each write alone (what the bench compares against).
  if (groupCommit) table.commits = commits;
  const keyvs = new Map<string, Keyv>();
  const coordinator = createMemoryCoordinator();
  const index = createSqliteOrderedIndexes(db, table.commits);
  // Pages are read here until the reader's worker runs (and where there is none).
  const inProcess = (request: PageRequest) =>
    collectPage(
      {
        positions: (list, limit, after, reverse) => index(request.namespace).page(list, limit, after, reverse),
        values: (keys) => table.getMany(request.namespace, keys).map(storedValue),
      },
      request,
    );
  const pages =
    path !== ':memory:' && options.pageReader !== false
      ? createSqlitePageReader({ path, driver: db.driver, inProcess })
      : undefined;

  const storage: Storage = {
    kind: 'sqlite',
    shared: false,
    commitsTogether: table.commits !== undefined,
    keyv<T = unknown>(namespace: string): Keyv<T> {
      let keyv = keyvs.get(namespace);
      if (!keyv) {
        const store = new KeyvBetterSqlite(table, namespace, busyWaitMs);
        // throwOnErrors: a disk or SQL failure must reach the caller, not become `undefined`.
        keyv = new Keyv({ store, namespace, useKeyPrefix: false, throwOnErrors: true, serialize, deserialize });
        keyvs.set(namespace, keyv);
      }
      return keyv as Keyv<T>;
    },
    coordinator,
    index,
    pages,
    queue: (name, queueOptions) => createKeyvQueue(storage, name, queueOptions),
    inventory: sqliteInventory(db),
    async close() {
      await coordinator.close();
      await pages?.close();
      await checkpointer?.close();
      keyvs.clear();
      commits.flush();
      if (db.open) db.close();
    },
  };
  return storage;
}

type Statements = ReturnType<typeof prepareStatements>;

/** Creates the table (and its expiry index: also on a store from before) if missing and compiles every statement once. */
function prepareStatements(db: Db) {
  db.exec(`CREATE TABLE IF NOT EXISTS portico_kv (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    expires INTEGER,
    PRIMARY KEY (namespace, key)
  ) WITHOUT ROWID;
  -- The sweep reads the rows with a TTL through this, not the whole table: a scan of a million
  -- connections held the gateway's thread for 140–210 ms once a minute. Few rows have a TTL.
  CREATE INDEX IF NOT EXISTS portico_kv_expires ON portico_kv (expires) WHERE expires IS NOT NULL`);
  const live = '(expires IS NULL OR expires > ?)';
  return {
    // 'first': the value itself, not an object around it (an object per row is most of a read's cost).
    get: db.prepare<[string, string, number], string>(
      `SELECT value FROM portico_kv WHERE namespace = ? AND key = ? AND ${live}`,
      'first',
    ),
    has: db.prepare<[string, string, number], { one: number }>(
      `SELECT 1 AS one FROM portico_kv WHERE namespace = ? AND key = ? AND ${live}`,
    ),
    set: db.prepare<[string, string, string, number | null]>(
      `INSERT INTO portico_kv (namespace, key, value, expires) VALUES (?, ?, ?, ?)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    ),
    delete: db.prepare<[string, string]>('DELETE FROM portico_kv WHERE namespace = ? AND key = ?'),
    clear: db.prepare<[string]>('DELETE FROM portico_kv WHERE namespace = ?'),
    page: db.prepare<[string, string, number, number], { key: string; value: string }>(
      `SELECT key, value FROM portico_kv WHERE namespace = ? AND key > ? AND ${live}
       ORDER BY key LIMIT ?`,
    ),
    sweep: db.prepare<[number]>('DELETE FROM portico_kv WHERE expires IS NOT NULL AND expires <= ?'),
  };
}

function expiresAt(now: number, ttl: number | undefined): number | null {
  return typeof ttl === 'number' && ttl > 0 && Number.isFinite(ttl) ? now + ttl : null;
}

/** Keyv's default serializer gives strings; a custom one might not, so keep the column TEXT. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
