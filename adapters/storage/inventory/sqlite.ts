import type { IndexEntry, StorageInventory } from '../../../lib/storage/index.js';
import type { SqliteDatabase } from '../sqlite-driver.js';

const PAGE = 1_000;
type Row = { namespace: string; list: string; id: string; ord: number };

/** The namespaces of `portico_kv` and the rows of `portico_index`, read in key order a page at a time. */
export function sqliteInventory(db: SqliteDatabase): StorageInventory {
  return {
    async namespaces() {
      return db
        .prepare<[number], { namespace: string }>(
          'SELECT DISTINCT namespace FROM portico_kv WHERE expires IS NULL OR expires > ?',
        )
        .all(Date.now())
        .map((r) => r.namespace);
    },
    async *indexEntries() {
      const first = db.prepare<[number], Row>(
        'SELECT namespace, list, id, ord FROM portico_index ORDER BY namespace, list, id LIMIT ?',
      );
      const next = db.prepare<[string, string, string, number], Row>(
        'SELECT namespace, list, id, ord FROM portico_index WHERE (namespace, list, id) > (?, ?, ?) ORDER BY namespace, list, id LIMIT ?',
      );
      let rows = first.all(PAGE);
      while (rows.length > 0) {
        yield rows.map((r): IndexEntry => ({ namespace: r.namespace, list: r.list, id: r.id, order: r.ord }));
        const last = rows.at(-1) as Row;
        if (rows.length < PAGE) return;
        rows = next.all(last.namespace, last.list, last.id, PAGE);
      }
    },
  };
}
