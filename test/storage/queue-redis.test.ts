import t from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import type { QueueOptions, WorkQueue } from '../../lib/queue/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { runWorkQueueContract, type Payload } from './queue/contract.js';

// BullMQ on a real Redis; every handle is a separate storage with its own connections, as
// separate processes would have.
if (await requireRedis(t)) {
  await runWorkQueueContract(t, 'bullmq on redis', async (t) => {
    const prefix = uniquePrefix('work-queue');
    let opened: { queue: WorkQueue<Payload>; storage: Storage }[] = [];
    const closeAll = async () => {
      for (const { queue, storage } of opened) {
        await queue.close();
        await storage.close();
      }
      opened = [];
    };
    t.teardown(async () => {
      await closeAll();
      await removeRedisKeys(prefix);
    });
    return {
      async open(options: QueueOptions = {}) {
        const storage = createRedisStorage({ url: redisUrl, prefix });
        const queue = storage.queue<Payload>('contract', { errorDelayMs: 100, ...options });
        opened.push({ queue, storage });
        return queue;
      },
      restart: closeAll,
      processArgs: ['redis', redisUrl, prefix],
    };
  });
}
