import t from 'tap';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { killAndRestart } from './durable-work.js';

// Two gateway processes start in turn; on a loaded machine each start alone can take half a minute.
t.setTimeout(300_000);

t.test('Redis: accepted work survives a SIGKILL', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('durable-work');
  t.teardown(() => removeRedisKeys(prefix));
  await killAndRestart(t, { STORE_URL: redisUrl, REDIS_PREFIX: prefix });
});
