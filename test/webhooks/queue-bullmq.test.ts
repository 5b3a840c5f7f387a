import t from 'tap';
import { createLogger } from '../../lib/http/logger.js';
import { createBullmqQueue, type DeliveryQueue } from '../../lib/webhooks/index.js';
import { redisUrl, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { removeRedisKeys } from './helpers.js';
import { runQueueContract } from './queue-contract.js';

if (await requireRedis(t)) {
  await runQueueContract(t, 'bullmq on redis', true, async (t) => {
    const prefix = uniquePrefix('webhook-queue');
    const opened: DeliveryQueue[] = [];
    t.teardown(async () => {
      for (const queue of opened) await queue.close();
      await removeRedisKeys(prefix);
    });
    return {
      async open() {
        const queue = createBullmqQueue({ url: redisUrl, prefix, logger: createLogger({ level: 'silent' }), concurrency: 4, attempts: 3, errorDelayMs: 100 });
        opened.push(queue);
        return queue;
      },
    };
  });
}

