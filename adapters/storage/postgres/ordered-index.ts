import type { IndexPosition, OrderedIndex } from '../../../lib/storage/index.js';
import type { Db } from './pool.js';

type Row = { ord: number; id: string };

const where = 'namespace = $1 AND list = $2';
/** A page's statements; exported so a test can EXPLAIN the very SQL a page runs. */
export const pageSql = {
  first: `SELECT ord, id FROM portico_index WHERE ${where} ORDER BY ord, id LIMIT $3`,
  after: `SELECT ord, id FROM portico_index WHERE ${where} AND (ord, id) > ($4, $5) ORDER BY ord, id LIMIT $3`,
  last: `SELECT ord, id FROM portico_index WHERE ${where} ORDER BY ord DESC, id DESC LIMIT $3`,
  before: `SELECT ord, id FROM portico_index WHERE ${where} AND (ord, id) < ($4, $5) ORDER BY ord DESC, id DESC LIMIT $3`,
};

/**
 * Ordered lists in `portico_index`: the primary key finds an id, the btree on
 * (namespace, list, ord, id) reads a page — a row comparison seeks to the cursor, then `limit` rows.
 */
export function createPostgresOrderedIndexes(db: Db): (namespace: string) => OrderedIndex {
  const positions = (rows: Row[]): IndexPosition[] => rows.map((r) => ({ order: r.ord, id: r.id }));
  return (namespace) => {
    const addMany = async (entries: readonly ({ list: string } & IndexPosition)[]) => {
      // The last position of an id given twice wins, as if added one after the other.
      const last = new Map<string, { list: string } & IndexPosition>();
      for (const e of entries) last.set(`${e.list}\u0000${e.id}`, e);
      if (last.size === 0) return;
      // In key order: concurrent batches lock rows in the same order (no deadlock).
      const rows = [...last.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
      await db.query(
        `INSERT INTO portico_index (namespace, list, id, ord)
         SELECT $1, l, i, o FROM unnest($2::text[], $3::text[], $4::float8[]) AS t(l, i, o)
         ON CONFLICT (namespace, list, id) DO UPDATE SET ord = excluded.ord`,
        [namespace, rows.map((r) => r.list), rows.map((r) => r.id), rows.map((r) => r.order)],
      );
    };
    return {
      add: (list, id, order) => addMany([{ list, id, order }]),
      addMany,
      async remove(list, id) {
        await db.query(`DELETE FROM portico_index WHERE ${where} AND id = $3`, [namespace, list, id]);
      },
      async page(list, limit, after, reverse = false) {
        const sql = reverse ? (after ? pageSql.before : pageSql.last) : after ? pageSql.after : pageSql.first;
        const params = after ? [namespace, list, limit, after.order, after.id] : [namespace, list, limit];
        return positions((await db.query<Row>(sql, params)).rows);
      },
      async count(list) {
        const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM portico_index WHERE ${where}`, [
          namespace,
          list,
        ]);
        return Number(rows[0]?.n ?? 0);
      },
    };
  };
}
