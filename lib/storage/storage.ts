import type Keyv from 'keyv';
import type { Coordinator } from '../coordination/index.js';
import type { OrderedIndex } from './ordered-index.js';
import type { PageReader } from './page-reader.js';
import type { QueueOptions, WorkQueue } from '../queue/index.js';

/**
 * Where the gateway keeps everything: Keyv namespaces over one back end, plus the coordinator
 * for what Keyv cannot do atomically and the work queue for what runs later. Back ends live in `adapters/storage/`.
 */
export interface Storage {
  /** `memory`, `sqlite`, `redis`, … — for logs and diagnostics only. */
  readonly kind: string;
  /** True when several gateway processes may share this storage; caches then keep short TTLs. */
  readonly shared: boolean;
  /**
   * True when writes begun in one event-loop turn (no await between them) commit together, in
   * one transaction, or not at all (SQLite's group commit): dependent writes may then be begun
   * at once instead of each after the previous one's commit (see `inOrder`).
   */
  readonly commitsTogether?: boolean | undefined;
  /** A Keyv whose keys live under `namespace`; the same namespace always gives the same data. */
  keyv<T = unknown>(namespace: string): Keyv<T>;
  readonly coordinator: Coordinator;
  /** Ordered lists of ids under `namespace`, for listings that read a page, not everything. */
  index(namespace: string): OrderedIndex;
  /**
   * Writes values with their index entries, in the order given, in one round trip where the back
   * end can (Redis: one script, run whole before any other command; one refused stops the rest).
   * Absent, `writeInOrder` sends them one after the other (see `inOrder`).
   */
  readonly writeListed?: ((writes: readonly ListedWrite[]) => Promise<boolean[]>) | undefined;
  /**
   * A handle on the named work queue, supplied by the back end next to the coordinator and as
   * shared as it is: each handle started is one more worker. The caller closes it.
   */
  queue<T>(name: string, options?: QueueOptions): WorkQueue<T>;
  /** Reads listing pages off the gateway's thread; absent where pages are read in process. */
  readonly pages?: PageReader | undefined;
  /** What the store holds, for copying it to another (`portico store copy`); absent on stores that cannot list it. */
  readonly inventory?: StorageInventory;
  close(): Promise<void>;
}

/**
 * A value with its entries in the ordered index of the same namespace: the entries in `add` are
 * written first, then the value (deleted when `value` is undefined), then the entries in `remove`
 * are taken out. `writeListed` answers, for a deletion, whether there was a value to delete (true
 * for a value written). A write of a value alone has no entries.
 */
export interface ListedWrite {
  /** The Keyv namespace of the value, and the index namespace of the entries. */
  namespace: string;
  key: string;
  value?: unknown;
  add: readonly { list: string; id: string; order: number }[];
  remove: readonly { list: string; id: string }[];
}

/** One ordered-index entry with where it lives. */
export interface IndexEntry {
  namespace: string;
  list: string;
  id: string;
  order: number;
}

/** Lists what a store holds, without knowing what the features keep there. */
export interface StorageInventory {
  /** Every Keyv namespace that holds at least one key. */
  namespaces(): Promise<string[]>;
  /** Every ordered-index entry, a page at a time. */
  indexEntries(): AsyncIterable<IndexEntry[]>;
}
