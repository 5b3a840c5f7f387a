import type { IndexPosition } from './ordered-index.js';

/**
 * What a listing shows of a stored value: a pure function, exported under `name` by the module
 * at `module` (a file URL, usually the module's own `import.meta.url`). Named rather than passed,
 * so that a reader on another thread can load it; the module must have no side effects.
 */
export interface ValueView {
  module: string;
  name: string;
}

/** One page of a collection's list, read with its values and shown through a view. */
export interface PageRequest {
  /** The Keyv namespace of the values, which is also the ordered index's namespace. */
  namespace: string;
  /** The list's key in the index. */
  list: string;
  /** A value's key is this prefix and its id. */
  keyPrefix: string;
  limit: number;
  after?: IndexPosition | undefined;
  reverse?: boolean | undefined;
  view: ValueView;
}

/** A page as the answer's JSON: the viewed values, a JSON array, and where the next page starts. */
export interface PageText {
  json: string;
  count: number;
  next: IndexPosition | null;
}

/**
 * Reads pages off the gateway's thread (SQLite: a worker with its own read-only connection), so
 * that a listing's reads, parses and JSON do not hold up the proxy. A back end without one
 * reads pages in process (`Collection.pageText`).
 */
export interface PageReader {
  read(request: PageRequest): Promise<PageText>;
}

/** Where `collectPage` reads: the index's positions and the values under keys. */
export interface PageSource {
  positions(
    list: string,
    limit: number,
    after?: IndexPosition,
    reverse?: boolean,
  ): IndexPosition[] | Promise<IndexPosition[]>;
  values(keys: string[]): (unknown | undefined)[] | Promise<(unknown | undefined)[]>;
}

type View = (value: never) => unknown;
const views = new Map<string, Promise<View>>();

/** The view's function, loaded once per module and name. */
export function loadView(view: ValueView): Promise<View> {
  const key = `${view.module}#${view.name}`;
  let loaded = views.get(key);
  if (!loaded) {
    loaded = import(view.module).then((module: Record<string, unknown>) => {
      const fn = module[view.name];
      if (typeof fn !== 'function') throw new TypeError(`${view.module} exports no function ${view.name}`);
      return fn as View;
    });
    views.set(key, loaded);
  }
  return loaded;
}

/**
 * Up to `limit` viewed values of the list after `after`. A listed id whose value is gone (a
 * write cut short) is skipped and the page filled from further on; `next` is set only when
 * the list goes on after the page's last entry.
 */
export async function collectPage(source: PageSource, request: PageRequest): Promise<PageText> {
  const view = await loadView(request.view);
  const parts: string[] = [];
  const text = () => `[${parts.join(',')}]`;
  let cursor = request.after;
  for (;;) {
    const want = request.limit - parts.length;
    // One more than needed: whether the list goes on is known without another read.
    const positions = await source.positions(request.list, want + 1, cursor, request.reverse);
    const taken = positions.slice(0, want);
    const values = await source.values(taken.map((p) => request.keyPrefix + p.id));
    for (let i = 0; i < taken.length; i++) {
      cursor = taken[i];
      const value = values[i];
      if (value !== undefined && value !== null) parts.push(JSON.stringify(view(value as never)));
      if (parts.length === request.limit) {
        const more = i < taken.length - 1 || positions.length > want;
        return { json: text(), count: parts.length, next: more ? (cursor ?? null) : null };
      }
    }
    if (positions.length <= want) return { json: text(), count: parts.length, next: null };
  }
}
