import { join } from 'node:path';
import t from 'tap';
import { createKeyvQueue, createSqliteStorage } from '../../adapters/storage/index.js';
import type { QueueOptions, WorkQueue } from '../../lib/queue/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { runWorkQueueContract, type Payload } from './queue/contract.js';

// The outbox on a real SQLite file; a restart reopens the file, as a new process would.
await runWorkQueueContract(t, 'outbox on sqlite', async (t) => {
  const path = join(t.testdir(), 'queue.db');
  let storage: Storage = createSqliteStorage({ path });
  let opened: WorkQueue<Payload>[] = [];
  const closeAll = async () => {
    for (const queue of opened) await queue.close();
    opened = [];
  };
  t.teardown(async () => {
    await closeAll();
    await storage.close();
  });
  return {
    async open(options: QueueOptions = {}) {
      // Fast polling so handles in one process see each other's jobs at once.
      const queue = createKeyvQueue<Payload>(storage, 'contract', { errorDelayMs: 100, ...options, pollMs: 60_000, tickMs: 100 });
      opened.push(queue);
      return queue;
    },
    async restart() {
      await closeAll();
      await storage.close();
      storage = createSqliteStorage({ path });
    },
    processArgs: ['sqlite', path, ''],
  };
});
