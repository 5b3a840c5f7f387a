import type Keyv from 'keyv';
import type { Coordinator } from '../coordination/index.js';
import type { OrderedIndex } from './ordered-index.js';

/**
 * Where the gateway keeps everything: Keyv namespaces over one back end, plus the coordinator
 * for what Keyv cannot do atomically. Back ends live in `adapters/storage/`.
 */
export interface Storage {
  /** `memory`, `sqlite`, `redis`, … — for logs and diagnostics only. */
  readonly kind: string;
  /** True when several gateway processes may share this storage; caches then keep short TTLs. */
  readonly shared: boolean;
  /** A Keyv whose keys live under `namespace`; the same namespace always gives the same data. */
  keyv<T = unknown>(namespace: string): Keyv<T>;
  readonly coordinator: Coordinator;
  /** Ordered lists of ids under `namespace`, for listings that read a page, not everything. */
  index(namespace: string): OrderedIndex;
  /**
   * Set by Redis back ends: where the Redis is and the key prefix in use, for features that
   * build on a Redis engine with its own connections (the webhook queue uses BullMQ).
   */
  readonly redis?: { readonly url: string; readonly prefix: string };
  close(): Promise<void>;
}
