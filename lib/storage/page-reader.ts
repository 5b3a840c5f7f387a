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

/**
 * A page as the answer's JSON: the viewed values as a JSON array in UTF-8, and where the next
 * page starts. Bytes, not a string: a page read on a worker thread comes back as its buffer,
 * moved rather than copied, and goes into the answer as it is. As text it was copied into the
 * gateway thread's heap (32 KB for 100 connections), copied again to join the answer and encoded
 * once more on the way out, on the thread that also answers proxied calls. `json` owns its memory
 * (never a slice of Node's shared pool), so it can be moved to another thread.
 */
export interface PageText {
  json: Buffer;
  count: number;
  next: IndexPosition | null;
}

const encoder = new TextEncoder();

/** The text's UTF-8 bytes in memory of their own (`Buffer.from` may slice its shared pool, which cannot be moved). */
function ownBytes(text: string): Buffer {
  const bytes = encoder.encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
  const text = () => ownBytes(`[${parts.join(',')}]`);
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
