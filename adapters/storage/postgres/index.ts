import Keyv from 'keyv';
import type { WorkQueue } from '../../../lib/queue/index.js';
import type { Storage } from '../../../lib/storage/index.js';
import { deserialize } from '../deserialize.js';
import { serialize } from '../serialize.js';
import { createPostgresCoordinator } from './coordinator.js';
import { postgresInventory } from './inventory.js';
import { createSweeper, KeyvPostgresStore } from './keyv-store.js';
import { createPostgresOrderedIndexes } from './ordered-index.js';
import { createDb, type PostgresPoolOptions } from './pool.js';
import { createPostgresQueue } from './queue.js';

export type PostgresStorageOptions = PostgresPoolOptions;
export { KeyvPostgresStore } from './keyv-store.js';
export { createPostgresCoordinator } from './coordinator.js';

/**
 * Everything on one PostgreSQL database (tables `portico_*` in one schema, created on first
 * use). `shared`: several gateway processes may use the same database and see the same data,
 * locks, counters and work queues, exactly as they share a Redis.
 */
export function createPostgresStorage(options: PostgresStorageOptions): Storage {
  const onError = options.onError ?? (() => {});
  const db = createDb(options);
  const sweep = createSweeper(db, onError);
  const keyvs = new Map<string, Keyv>();
  const coordinator = createPostgresCoordinator(db);
  // Handles still open when the storage closes are closed with it: their polls would hit an ended pool.
  const queues = new Set<WorkQueue<unknown>>();

  return {
    kind: 'postgres',
    shared: true,
    keyv<T = unknown>(namespace: string): Keyv<T> {
      let keyv = keyvs.get(namespace);
      if (!keyv) {
        const store = new KeyvPostgresStore(db, namespace, sweep);
        // throwOnErrors: a database failure must reach the caller, not become a silent `undefined`.
        keyv = new Keyv({ store, namespace, useKeyPrefix: false, throwOnErrors: true, serialize, deserialize });
        keyvs.set(namespace, keyv);
      }
      return keyv as Keyv<T>;
    },
    coordinator,
    index: createPostgresOrderedIndexes(db),
    queue<T>(name: string, queueOptions?: Parameters<Storage['queue']>[1]): WorkQueue<T> {
      const queue = createPostgresQueue<T>(db, name, queueOptions);
      const close = queue.close.bind(queue);
      queues.add(queue as WorkQueue<unknown>);
      return {
        ...queue,
        close: () => {
          queues.delete(queue as WorkQueue<unknown>);
          return close();
        },
      };
    },
    inventory: postgresInventory(db),
    async close() {
      await Promise.allSettled([...queues].map((queue) => queue.close()));
      queues.clear();
      await coordinator.close();
      keyvs.clear();
      await db.end();
    },
  };
}
