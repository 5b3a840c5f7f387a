import type Keyv from 'keyv';
import type { Coordinator } from '../coordination/index.js';
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
  /** A Keyv whose keys live under `namespace`; the same namespace always gives the same data. */
  keyv<T = unknown>(namespace: string): Keyv<T>;
  readonly coordinator: Coordinator;
  /**
   * A handle on the named work queue, supplied by the back end next to the coordinator and as
   * shared as it is: each handle started is one more worker. The caller closes it.
   */
  queue<T>(name: string, options?: QueueOptions): WorkQueue<T>;
  close(): Promise<void>;
}
