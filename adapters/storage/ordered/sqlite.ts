import type { IndexPosition, OrderedIndex } from '../../../lib/storage/index.js';
import type { SqliteDatabase } from '../sqlite-driver.js';

/** Rows come back as arrays: a driver builds an object per row otherwise, 3× the cost of a page. */
type Row = [ord: number, id: string];

/**
 * Ordered lists in one table beside the key–value table: the primary key finds an id, a
 * second index on (namespace, list, ord, id) reads a page in order — a seek and `limit` rows.
 */
export function createSqliteOrderedIndexes(
  db: SqliteDatabase,
  /** How writes run: at once by default; the storage passes its group commit (sqlite-commit.ts). */
  write: <T>(work: () => T) => Promise<T> = async (work) => work(),
): (namespace: string) => OrderedIndex {
  db.exec(`CREATE TABLE IF NOT EXISTS portico_index (
    namespace TEXT NOT NULL,
    list TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    PRIMARY KEY (namespace, list, id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS portico_index_order ON portico_index (namespace, list, ord, id)`);
  const where = 'namespace = ? AND list = ?';
  const s = {
    add: db.prepare<[string, string, string, number]>(
      `INSERT INTO portico_index (namespace, list, id, ord) VALUES (?, ?, ?, ?)
       ON CONFLICT (namespace, list, id) DO UPDATE SET ord = excluded.ord`,
    ),
    remove: db.prepare<[string, string, string]>(`DELETE FROM portico_index WHERE ${where} AND id = ?`),
    first: db.prepare<[string, string, number], Row>(
      `SELECT ord, id FROM portico_index WHERE ${where} ORDER BY ord, id LIMIT ?`,
      'arrays',
    ),
    after: db.prepare<[string, string, number, string, number], Row>(
      `SELECT ord, id FROM portico_index WHERE ${where} AND (ord, id) > (?, ?) ORDER BY ord, id LIMIT ?`,
      'arrays',
    ),
    last: db.prepare<[string, string, number], Row>(
      `SELECT ord, id FROM portico_index WHERE ${where} ORDER BY ord DESC, id DESC LIMIT ?`,
      'arrays',
    ),
    before: db.prepare<[string, string, number, string, number], Row>(
      `SELECT ord, id FROM portico_index WHERE ${where} AND (ord, id) < (?, ?) ORDER BY ord DESC, id DESC LIMIT ?`,
      'arrays',
    ),
    count: db.prepare<[string, string], { n: number }>(`SELECT COUNT(*) AS n FROM portico_index WHERE ${where}`),
  };
  const addMany = db.transaction((namespace: string, entries: readonly ({ list: string } & IndexPosition)[]) => {
    for (const e of entries) s.add.run(namespace, e.list, e.id, e.order);
  });
  const positions = (rows: Row[]): IndexPosition[] => rows.map(([order, id]) => ({ order, id }));

  return (namespace) => ({
    async add(list, id, order) {
      await write(() => s.add.run(namespace, list, id, order));
    },
    async addMany(entries) {
      await write(() => addMany(namespace, entries));
    },
    async remove(list, id) {
      await write(() => s.remove.run(namespace, list, id));
    },
    async page(list, limit, after, reverse = false) {
      if (reverse)
        return positions(
          after ? s.before.all(namespace, list, after.order, after.id, limit) : s.last.all(namespace, list, limit),
        );
      return positions(
        after ? s.after.all(namespace, list, after.order, after.id, limit) : s.first.all(namespace, list, limit),
      );
    },
    async count(list) {
      return s.count.get(namespace, list)?.n ?? 0;
    },
  });
}
