import type { IndexPosition, OrderedIndex } from '../../../lib/storage/index.js';
import { atomic, type GroupCommit } from '../sqlite-commit.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { createIndexTable, preparePositions } from './sqlite-positions.js';

/**
 * Ordered lists in one table beside the key–value table: the primary key finds an id (and
 * orders a keyed list), a partial index on (namespace, list, ord, id) reads an ordered list's
 * page in order — a seek and `limit` rows (sqlite-positions.ts).
 */
export function createSqliteOrderedIndexes(
  db: SqliteDatabase,
  /** How writes run: at once by default; the storage passes its group commit (sqlite-commit.ts). */
  commits?: GroupCommit,
): (namespace: string) => OrderedIndex {
  const write = commits ? <T>(work: () => T) => commits.write(work) : async <T>(work: () => T) => work();
  createIndexTable(db);
  const where = 'namespace = ? AND list = ?';
  const s = {
    add: db.prepare<[string, string, string, number]>(
      `INSERT INTO portico_index (namespace, list, id, ord) VALUES (?, ?, ?, ?)
       ON CONFLICT (namespace, list, id) DO UPDATE SET ord = excluded.ord`,
    ),
    remove: db.prepare<[string, string, string]>(`DELETE FROM portico_index WHERE ${where} AND id = ?`),
    count: db.prepare<[string, string], { n: number }>(`SELECT COUNT(*) AS n FROM portico_index WHERE ${where}`),
  };
  const positions = preparePositions(db);
  const addMany = atomic(
    db,
    () => commits,
    (namespace: string, entries: readonly ({ list: string } & IndexPosition)[]) => {
      for (const e of entries) s.add.run(namespace, e.list, e.id, e.order);
    },
  );

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
      return positions(namespace, list, limit, after, reverse);
    },
    async count(list) {
      return s.count.get(namespace, list)?.n ?? 0;
    },
  });
}
