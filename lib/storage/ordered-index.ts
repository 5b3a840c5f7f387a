/** Where an entry sits in a list: its order, ties broken by id. */
export interface IndexPosition {
  order: number;
  id: string;
}

/**
 * Ids kept in order in named lists, read a page at a time: what a listing needs without
 * reading, or rewriting, everything listed. A page costs O(log n + page) on every back end
 * (a table with an index on SQLite, a sorted set on Redis, a sorted array in memory). An id is
 * in a list at most once; adding it again moves it. No locks: each call is atomic on its own.
 * A list is keyed (every entry at order 0, see `page`) or ordered (no entry at order 0), never
 * both: SQLite keeps the two kinds in different B-trees (adapters/storage/ordered/sqlite-positions.ts).
 */
export interface OrderedIndex {
  add(list: string, id: string, order: number): Promise<void>;
  /** Several at once (imports, upgrades); one round trip or transaction. */
  addMany(entries: readonly ({ list: string } & IndexPosition)[]): Promise<void>;
  remove(list: string, id: string): Promise<void>;
  /**
   * Up to `limit` entries after `after` (exclusive), ascending by (order, id), or descending
   * when `reverse` is set (then "after" means below). In a keyed list (every entry at order 0,
   * so ordered by id alone, compared as bytes) `after` may be any string: a prefix to seek to.
   */
  page(list: string, limit: number, after?: IndexPosition, reverse?: boolean): Promise<IndexPosition[]>;
  /** How many ids the list holds (bounded lists only: it may cost the list's length on SQLite). */
  count(list: string): Promise<number>;
}

/** Orders that increase across calls and restarts: microseconds since the epoch, never the same twice in a process. */
export function createOrderClock(now: () => number = Date.now): () => number {
  let last = 0;
  return () => {
    last = Math.max(now() * 1000, last + 1);
    return last;
  };
}

/** (a, b) compare as the index orders them. */
export function comparePositions(a: IndexPosition, b: IndexPosition): number {
  if (a.order !== b.order) return a.order < b.order ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}
