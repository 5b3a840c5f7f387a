import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { createLogger } from '../../lib/http/logger.js';
import { createKeyvQueue, type DeliveryQueue } from '../../lib/webhooks/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { runQueueContract } from './queue-contract.js';

// The embedded outbox on a real SQLite file; each `open` is a fresh process's view of that file.
await runQueueContract(t, 'outbox on sqlite', false, async (t) => {
  const path = join(t.testdir(), 'outbox.db');
  const opened: { queue: DeliveryQueue; storage: Storage }[] = [];
  t.teardown(async () => {
    for (const { queue, storage } of opened) {
      await queue.close();
      await storage.close();
    }
  });
  return {
    async open() {
      // One process owns the file at a time: the previous one is gone before the next opens.
      for (const { queue, storage } of opened) {
        await queue.close();
        await storage.close();
      }
      const storage = createSqliteStorage({ path });
      const queue = createKeyvQueue({ storage, logger: createLogger({ level: 'silent' }), concurrency: 4, errorDelayMs: 100 });
      opened.push({ queue, storage });
      return queue;
    },
  };
});
