import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import type { Db } from './pool.js';

type Entry = { key: string; value: unknown; ttl?: number };

/** Expired rows are invisible at once; deleting them happens at most this often per process, on a write. */
const SWEEP_INTERVAL_MS = 60_000;
/** Rows per page when iterating: the caller may write between pages. */
const ITERATOR_PAGE = 500;
const live = '(expires IS NULL OR expires > $3)';

/**
 * Keyv 5 store adapter for one namespace of the `portico_kv` table (a column, so clearing a
 * namespace is one indexed DELETE). Batches are one statement each (`= ANY`, `unnest`), so a
 * `getMany` of the records store is one round trip. Use with `useKeyPrefix: false`. It does not
 * own the pool: the storage closes it.
 */
export class KeyvPostgresStore extends EventEmitter implements KeyvStoreAdapter {
  namespace?: string | undefined;
  /** `dialect` is how Keyv recognises an iterable adapter. */
  readonly opts = { dialect: 'postgres', url: 'postgres://' };

  constructor(
    private readonly db: Db,
    namespace: string,
    private readonly sweep: () => void,
  ) {
    super();
    this.namespace = namespace;
  }

  private get ns(): string {
    return this.namespace ?? '';
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const { rows } = await this.db.query<{ value: string }>(
      `SELECT value FROM portico_kv WHERE namespace = $1 AND key = $2 AND ${live}`,
      [this.ns, key, Date.now()],
    );
    // Keyv hands us, and gets back, its serialized string; the cast only satisfies the generic.
    return rows[0]?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const { rows } = await this.db.query<{ key: string; value: string }>(
      `SELECT key, value FROM portico_kv WHERE namespace = $1 AND key = ANY($2::text[]) AND ${live}`,
      [this.ns, keys, Date.now()],
    );
    const found = new Map(rows.map((row) => [row.key, row.value]));
    return keys.map((key) => found.get(key)) as Array<StoredData<Value | undefined>>;
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    await this.write([ttl === undefined ? { key, value } : { key, value, ttl }]);
    return true;
  }

  /** Keyv's type says `void`, but `Keyv.setMany` hands on whatever this returns as its `boolean[]`. */
  async setMany(entries: Entry[]): Promise<void> {
    await this.write(entries);
    return entries.map(() => true) as unknown as void;
  }

  async delete(key: string): Promise<boolean> {
    return this.deleteMany([key]);
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    const result = await this.db.query('DELETE FROM portico_kv WHERE namespace = $1 AND key = ANY($2::text[])', [
      this.ns,
      keys,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  async clear(): Promise<void> {
    await this.db.query('DELETE FROM portico_kv WHERE namespace = $1', [this.ns]);
  }

  async has(key: string): Promise<boolean> {
    return (await this.hasMany([key]))[0] === true;
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    const { rows } = await this.db.query<{ key: string }>(
      `SELECT key FROM portico_kv WHERE namespace = $1 AND key = ANY($2::text[]) AND ${live}`,
      [this.ns, keys, Date.now()],
    );
    const found = new Set(rows.map((row) => row.key));
    return keys.map((key) => found.has(key));
  }

  // Paged by key rather than one open cursor: a cursor would hold a pooled connection between yields.
  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    const ns = namespace ?? this.ns;
    let after = '';
    for (;;) {
      const { rows } = await this.db.query<{ key: string; value: string }>(
        `SELECT key, value FROM portico_kv WHERE namespace = $1 AND key > $2 AND (expires IS NULL OR expires > $3)
         ORDER BY key LIMIT $4`,
        [ns, after, Date.now(), ITERATOR_PAGE],
      );
      for (const row of rows) yield [row.key, row.value as Awaited<Value>];
      const last = rows.at(-1);
      if (!last || rows.length < ITERATOR_PAGE) return;
      after = last.key;
    }
  }

  /** One upsert for the batch; a key given twice keeps its last value (one row may not be updated twice in a statement). */
  private async write(entries: Entry[]): Promise<void> {
    const now = Date.now();
    const last = new Map<string, Entry>();
    for (const entry of entries) last.set(entry.key, entry);
    const keys: string[] = [];
    const values: string[] = [];
    const expires: (number | null)[] = [];
    // In key order: two batches over the same keys then lock rows in the same order (no deadlock).
    for (const { key, value, ttl } of [...last.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
      keys.push(key);
      values.push(typeof value === 'string' ? value : JSON.stringify(value));
      expires.push(typeof ttl === 'number' && ttl > 0 && Number.isFinite(ttl) ? now + ttl : null);
    }
    await this.db.query(
      `INSERT INTO portico_kv (namespace, key, value, expires)
       SELECT $1, k, v, e FROM unnest($2::text[], $3::text[], $4::bigint[]) AS t(k, v, e)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
      [this.ns, keys, values, expires],
    );
    this.sweep();
  }
}

/** A sweeper of expired rows shared by every namespace: at most one DELETE a minute, in the background. */
export function createSweeper(db: Db, onError: (error: unknown) => void): () => void {
  let last = Date.now();
  return () => {
    const now = Date.now();
    if (now - last < SWEEP_INTERVAL_MS) return;
    last = now;
    db.query('DELETE FROM portico_kv WHERE expires IS NOT NULL AND expires <= $1', [now]).catch(onError);
  };
}
