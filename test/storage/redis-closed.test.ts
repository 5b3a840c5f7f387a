import t from 'tap';
import { moduleUrl, runModule } from '../helpers/child.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';

t.test('a closed Redis storage stays closed: a late read or write fails, and nothing reconnects', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('redis-closed');
  t.teardown(() => removeRedisKeys(prefix));
  // A write that lands after close (a run's log, a lock's release as a gateway stops after its
  // store) used to open the connection again through KeyvRedis, succeed, and keep the process
  // alive for good.
  const { stdout, stderr, code, ms } = await runModule(
    `
    import { createRedisStorage } from ${moduleUrl('../../adapters/storage/index.js', import.meta.url)};
    const storage = createRedisStorage({ url: ${JSON.stringify(redisUrl)}, prefix: ${JSON.stringify(prefix)} });
    const values = storage.keyv('ns');
    await values.set('before', 1);
    await storage.close();
    for (const [name, op] of [['write', () => values.set('after', 2)], ['read', () => values.get('before')]]) {
      try {
        await op();
        console.log(name + ': answered');
      } catch {
        console.log(name + ': failed');
      }
    }
    `,
    { limitMs: 60_000 },
  );
  t.same(stdout.trim().split('\n'), ['write: failed', 'read: failed'], stderr);
  t.equal(code, 0, `the process exited by itself (after ${ms} ms; killed at 60 s otherwise)`);
  const { createClient } = await import('@keyv/redis');
  const client = createClient({ url: redisUrl });
  await client.connect();
  t.teardown(() => client.close());
  t.equal(await client.exists(`${prefix}kv:ns::after`), 0, 'the late write did not land');
});
