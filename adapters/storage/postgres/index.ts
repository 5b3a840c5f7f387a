import Keyv from 'keyv';
import type { WorkQueue } from '../../../lib/queue/index.js';
import type { Storage } from '../../../lib/storage/index.js';
import { deserialize } from '../deserialize.js';
import { serialize } from '../serialize.js';
import { createPostgresCoordinator } from './coordinator.js';
import { postgresInventory } from './inventory.js';
import { createSweeper, KeyvPostgresStore } from './keyv-store.js';
import { createPostgresListedWrite } from './listed-write.js';
import { createPostgresOrderedIndexes } from './ordered-index.js';
import { createDb, type PostgresPoolOptions } from './pool.js';
import { createPostgresQueue } from './queue.js';
import { countWrites, createStatisticsUpkeep, statisticsSwitch, type StatisticsOptions } from './statistics.js';

export interface PostgresStorageOptions extends PostgresPoolOptions {
  /**
   * Keep the planner statistics of Portico's tables fresh where autovacuum does not (it is off on
   * the server, or on a table): `ANALYZE` on a table once autovacuum's threshold of changed rows
   * is passed, by one instance at a time (statistics.ts). Nothing happens while autovacuum is on.
   * Default true, or the URL's `maintain_statistics=on|off`; an object tunes the checks.
   */
  maintainStatistics?: boolean | StatisticsOptions;
  /** Notices about the database's upkeep (autovacuum off, dead rows piling up). Default: `process.emitWarning`. */
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
}
export { KeyvPostgresStore } from './keyv-store.js';
export { createPostgresCoordinator } from './coordinator.js';
export { statisticsSwitch, type StatisticsOptions } from './statistics.js';

const emitWarning = (message: string, fields: Record<string, unknown>) =>
  process.emitWarning(`${message} ${JSON.stringify(fields)}`, { code: 'PORTICO_POSTGRES_STATISTICS' });

/**
 * Everything on one PostgreSQL database (tables `portico_*` in one schema, created on first
 * use). `shared`: several gateway processes may use the same database and see the same data,
 * locks, counters and work queues, exactly as they share a Redis.
 */
export function createPostgresStorage(options: PostgresStorageOptions): Storage {
  const onError = options.onError ?? (() => {});
  const pool = createDb(options);
  const maintain = options.maintainStatistics ?? statisticsSwitch(options.url) ?? true;
  const statistics =
    maintain === false
      ? undefined
      : createStatisticsUpkeep(
          pool,
          { onError, onWarning: options.onWarning ?? emitWarning },
          maintain === true ? {} : maintain,
        );
  // Writes tell the upkeep how much changed, so an import is analyzed soon after, not at the next period.
  const db = statistics ? countWrites(pool, statistics.wrote) : pool;
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
    writeListed: createPostgresListedWrite(db, { wrote: statistics?.wrote, sweep }),
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
      await statistics?.close();
      await coordinator.close();
      keyvs.clear();
      await db.end();
    },
  };
}
