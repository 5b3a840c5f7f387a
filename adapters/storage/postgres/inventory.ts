import type { IndexEntry, StorageInventory } from '../../../lib/storage/index.js';
import type { Db } from './pool.js';

const PAGE = 1_000;
type Row = { namespace: string; list: string; id: string; ord: number };

/** The namespaces of `portico_kv` and the rows of `portico_index`, in primary-key order a page at a time. */
export function postgresInventory(db: Db): StorageInventory {
  return {
    async namespaces() {
      const { rows } = await db.query<{ namespace: string }>(
        'SELECT DISTINCT namespace FROM portico_kv WHERE expires IS NULL OR expires > $1',
        [Date.now()],
      );
      return rows.map((r) => r.namespace);
    },
    async *indexEntries() {
      let after: Row | undefined;
      for (;;) {
        const { rows } = after
          ? await db.query<Row>(
              `SELECT namespace, list, id, ord FROM portico_index WHERE (namespace, list, id) > ($1, $2, $3)
              ORDER BY namespace, list, id LIMIT $4`,
              [after.namespace, after.list, after.id, PAGE],
            )
          : await db.query<Row>(
              'SELECT namespace, list, id, ord FROM portico_index ORDER BY namespace, list, id LIMIT $1',
              [PAGE],
            );
        if (rows.length > 0)
          yield rows.map((r): IndexEntry => ({ namespace: r.namespace, list: r.list, id: r.id, order: r.ord }));
        if (rows.length < PAGE) return;
        after = rows.at(-1);
      }
    },
  };
}
