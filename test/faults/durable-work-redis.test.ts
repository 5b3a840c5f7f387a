import t from 'tap';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { killAndRestart } from './durable-work.js';

t.test('Redis: accepted work survives a SIGKILL', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('durable-work');
  t.teardown(() => removeRedisKeys(prefix));
  await killAndRestart(t, { STORE_URL: redisUrl, REDIS_PREFIX: prefix });
});
