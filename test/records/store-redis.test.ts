import t from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { createRecordStore } from '../../lib/records/index.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { many, page, readAll, refOf } from './contract.js';
import { runRecordStoreContract } from './contract-suite.js';

// One prefix per run; each storage below gets its own sub-prefix, so subtests share no data.
const prefix = uniquePrefix('records');
let storages = 0;
const freshPrefix = () => `${prefix}${storages++}:`;

if (await requireRedis(t)) {
  t.teardown(removeKeys);
  await runRecordStoreContract(t, 'redis', () => createRedisStorage({ url: redisUrl, prefix: freshPrefix() }));

  t.test('two gateway processes on one Redis: writes exclude each other, reads see both', async (t) => {
    const storages = [createRedisStorage({ url: redisUrl, prefix }), createRedisStorage({ url: redisUrl, prefix })];
    const stores = storages.map((storage) => createRecordStore({ storage }));
    t.teardown(async () => {
      for (const store of stores) await store.close();
      for (const storage of storages) await storage.close();
    });
    const ref = refOf({ connectionId: 'two-processes' });
    // Concurrent batches from both: sequence numbers must never collide.
    await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % 2]!.saveBatch(ref, many(50, i * 50))));
    const { records } = await readAll(stores[0]!, ref, { limit: 77 });
    t.equal(records.length, 500, 'every record of both processes, once');
    t.equal(new Set(records.map((r) => r._service_metadata.cursor)).size, 500, 'distinct cursors');
    t.equal((await page(stores[1]!, ref, { ids: ['r000499'] })).records.length, 1);
  });
}

function removeKeys() {
  return removeRedisKeys(prefix);
}
