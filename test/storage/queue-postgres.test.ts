import t from 'tap';
import { createPostgresStorage } from '../../adapters/storage/index.js';
import type { QueueOptions, WorkQueue } from '../../lib/queue/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';
import { runWorkQueueContract, type Payload } from './queue/contract.js';

// The PostgreSQL work queue on a real server; every handle is a separate storage with its own
// pool, as separate processes would have, and each subtest has a schema of its own.
if (await requirePostgres(t)) {
  await runWorkQueueContract(t, 'postgres', async (t) => {
    const { url } = postgresSchema(t, 'queue');
    let opened: { queue: WorkQueue<Payload>; storage: Storage }[] = [];
    const closeAll = async () => {
      for (const { queue, storage } of opened) {
        await queue.close();
        await storage.close();
      }
      opened = [];
    };
    t.teardown(closeAll);
    return {
      async open(options: QueueOptions = {}) {
        const storage = createPostgresStorage({ url, maxConnections: 4 });
        const queue = storage.queue<Payload>('contract', { errorDelayMs: 100, ...options });
        opened.push({ queue, storage });
        return queue;
      },
      restart: closeAll,
      processArgs: ['postgres', url, ''],
    };
  });
}
