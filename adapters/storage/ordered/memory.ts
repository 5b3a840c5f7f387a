import { comparePositions, type IndexPosition, type OrderedIndex } from '../../../lib/storage/index.js';

/**
 * Lists as sorted arrays with a map from id to position: appends (the usual case, orders grow)
 * and page reads are O(log n + page); a removal or an out-of-order insert moves the tail.
 */
export function createMemoryOrderedIndex(): OrderedIndex & { clear(): void } {
  const lists = new Map<string, { sorted: IndexPosition[]; orders: Map<string, number> }>();
  const listOf = (name: string) => {
    let list = lists.get(name);
    if (!list) lists.set(name, (list = { sorted: [], orders: new Map() }));
    return list;
  };
  /** First index whose entry sorts after `at` (or at it, when `inclusive`). */
  const seek = (sorted: IndexPosition[], at: IndexPosition, inclusive: boolean) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = comparePositions(sorted[mid] as IndexPosition, at);
      if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const removeFrom = (name: string, id: string) => {
    const list = lists.get(name);
    const order = list?.orders.get(id);
    if (!list || order === undefined) return;
    list.sorted.splice(seek(list.sorted, { order, id }, true), 1);
    list.orders.delete(id);
    if (list.orders.size === 0) lists.delete(name);
  };
  const addTo = (name: string, id: string, order: number) => {
    if (lists.get(name)?.orders.get(id) === order) return;
    removeFrom(name, id);
    const list = listOf(name);
    const entry = { order, id };
    const last = list.sorted.at(-1);
    if (!last || comparePositions(last, entry) < 0) list.sorted.push(entry);
    else list.sorted.splice(seek(list.sorted, entry, false), 0, entry);
    list.orders.set(id, order);
  };

  return {
    async add(list, id, order) {
      addTo(list, id, order);
    },
    async addMany(entries) {
      for (const e of entries) addTo(e.list, e.id, e.order);
    },
    async remove(list, id) {
      removeFrom(list, id);
    },
    async page(name, limit, after, reverse = false) {
      const sorted = lists.get(name)?.sorted ?? [];
      if (!reverse) {
        const from = after ? seek(sorted, after, false) : 0;
        return sorted.slice(from, from + limit).map((e) => ({ ...e }));
      }
      const below = after ? seek(sorted, after, true) : sorted.length;
      return sorted
        .slice(Math.max(0, below - limit), below)
        .reverse()
        .map((e) => ({ ...e }));
    },
    async count(name) {
      return lists.get(name)?.orders.size ?? 0;
    },
    clear() {
      lists.clear();
    },
  };
}
