import type { Test } from 'tap';
import { createPostgresStorage, createRedisStorage } from '../../adapters/storage/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { postgresSchema, requirePostgres } from './postgres.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from './redis.js';

/**
 * The stores several gateway instances can share, so a multi-instance test runs once per
 * back end: `for (const store of sharedStores) t.test(`… on ${store.name}`, …)`.
 */
export interface SharedStore {
  /** `Redis`, `PostgreSQL`: for test names. */
  name: string;
  /** What a gateway on it reports as its work queue's kind. */
  queueKind: string;
  /** True when the back end answers (otherwise the test is skipped, or fails under CI=true). */
  require(t: Test): Promise<boolean>;
  /**
   * One shared place (a key prefix, a schema) for this test, removed at its teardown, and a
   * factory of storages on it: each call is one more instance with its own connections.
   */
  place(t: Test, label: string): () => Storage;
}

export const sharedStores: readonly SharedStore[] = [
  {
    name: 'Redis',
    queueKind: 'bullmq',
    require: requireRedis,
    place(t, label) {
      const prefix = uniquePrefix(label);
      t.teardown(() => removeRedisKeys(prefix));
      return () => createRedisStorage({ url: redisUrl, prefix });
    },
  },
  {
    name: 'PostgreSQL',
    queueKind: 'postgres',
    require: requirePostgres,
    place(t, label) {
      const { url } = postgresSchema(t, label);
      // A small pool each: three instances in one test process share one server.
      return () => createPostgresStorage({ url, maxConnections: 5 });
    },
  },
];
