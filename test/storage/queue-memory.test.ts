import t from 'tap';
import { createKeyvQueue, createMemoryStorage } from '../../adapters/storage/index.js';
import type { QueueOptions, WorkQueue } from '../../lib/queue/index.js';
import { runWorkQueueContract, type Payload } from './queue/contract.js';

// The outbox on memory storage. A "restart" closes the handles but keeps the store: memory
// storage itself does not survive a real restart, which is why it is for tests and demos.
await runWorkQueueContract(t, 'outbox on memory', async (t) => {
  const storage = createMemoryStorage();
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
      const queue = createKeyvQueue<Payload>(storage, 'contract', { errorDelayMs: 100, ...options, pollMs: 60_000, tickMs: 100 });
      opened.push(queue);
      return queue;
    },
    restart: closeAll,
  };
});
