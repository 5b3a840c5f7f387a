import type { SqliteDatabase } from '../sqlite-driver.js';

/** An index entry as a page returns it: its order, ties broken by id. */
export interface Position {
  order: number;
  id: string;
}

/** Rows come back as arrays: a driver builds an object per row otherwise, 3× the cost of a page. */
type Row = [ord: number, id: string];

/** The index on (namespace, list, ord, id): entries of ordered lists only (order ≠ 0). */
export const orderIndex = 'portico_index_ordered';
/** Its name before: every entry, keyed ones too (dropped on the first start after the upgrade). */
const previousOrderIndex = 'portico_index_order';

/**
 * The index table and its order index. An entry at order 0 is a keyed list's (lib/storage
 * keyed-list.ts): ordered by id, which the primary key already is, so it is left out of the
 * order index — one B-tree written per entry instead of two (an import writes six of them).
 * A store written before gets the new index, and loses the old one, in one transaction on start.
 */
export function createIndexTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS portico_index (
    namespace TEXT NOT NULL,
    list TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    PRIMARY KEY (namespace, list, id)
  ) WITHOUT ROWID`);
  const create = `CREATE INDEX IF NOT EXISTS ${orderIndex} ON portico_index (namespace, list, ord, id) WHERE ord <> 0`;
  const found = db
    .prepare<[string], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?", 'first')
    .get(previousOrderIndex);
  if (found === undefined) {
    db.exec(create);
    return;
  }
  db.transaction(() => {
    db.exec(create);
    db.exec(`DROP INDEX ${previousOrderIndex}`);
  })();
}

/**
 * Reads a page of a list in (order, id) order, ascending or descending. A list holds keyed
 * entries (order 0, read through the primary key) or ordered ones (order ≠ 0, read through the
 * order index), not both; a cursor at order 0 reads the keyed entries, any other cursor the
 * ordered ones, and a read from the start the ordered ones, then the keyed ones if there are none.
 * Every read is a seek and the page's rows. Used by the gateway's connection and the page reader's.
 */
export function preparePositions(db: SqliteDatabase) {
  const where = 'namespace = ? AND list = ?';
  const rows = (sql: string) => db.prepare<unknown[], Row>(sql, 'arrays');
  const ordered = `${where} AND ord <> 0`;
  const keyed = `${where} AND ord = 0`;
  const s = {
    first: rows(`SELECT ord, id FROM portico_index WHERE ${ordered} ORDER BY ord, id LIMIT ?`),
    after: rows(`SELECT ord, id FROM portico_index WHERE ${ordered} AND (ord, id) > (?, ?) ORDER BY ord, id LIMIT ?`),
    last: rows(`SELECT ord, id FROM portico_index WHERE ${ordered} ORDER BY ord DESC, id DESC LIMIT ?`),
    before: rows(
      `SELECT ord, id FROM portico_index WHERE ${ordered} AND (ord, id) < (?, ?) ORDER BY ord DESC, id DESC LIMIT ?`,
    ),
    keyedFirst: rows(`SELECT ord, id FROM portico_index WHERE ${keyed} ORDER BY id LIMIT ?`),
    keyedAfter: rows(`SELECT ord, id FROM portico_index WHERE ${keyed} AND id > ? ORDER BY id LIMIT ?`),
    keyedLast: rows(`SELECT ord, id FROM portico_index WHERE ${keyed} ORDER BY id DESC LIMIT ?`),
    keyedBefore: rows(`SELECT ord, id FROM portico_index WHERE ${keyed} AND id < ? ORDER BY id DESC LIMIT ?`),
  };
  return (namespace: string, list: string, limit: number, after?: Position, reverse = false): Position[] => {
    let found: Row[];
    if (after?.order === 0) found = (reverse ? s.keyedBefore : s.keyedAfter).all(namespace, list, after.id, limit);
    else if (after) found = (reverse ? s.before : s.after).all(namespace, list, after.order, after.id, limit);
    else {
      found = (reverse ? s.last : s.first).all(namespace, list, limit);
      if (found.length === 0) found = (reverse ? s.keyedLast : s.keyedFirst).all(namespace, list, limit);
    }
    return found.map(([order, id]) => ({ order, id }));
  };
}
