import t, { type Test } from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createDeliveryLog, type DeliveryRecord } from '../../lib/webhooks/deliveries.js';
import { createDeliverySequence } from '../../lib/webhooks/sequence.js';
import { redisStorageFor } from '../helpers/redis.js';

const record = (seq: number, connectionId: string): DeliveryRecord => ({
  seq,
  delivery_id: `d-${seq}`,
  environment: 'dev',
  type: 'auth',
  connection_id: connectionId,
  provider_config_key: 'stripe',
  target: 'none',
  url: null,
  state: 'skipped',
  reason: 'no_webhook_url',
  attempts: [],
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
});

for (const [name, open] of [
  ['memory', async () => createMemoryStorage()],
  ['Redis', (t: Test) => redisStorageFor(t, 'delivery-log')],
] as const)
  t.test(
    `only the newest \`retention\` deliveries are kept, the oldest deleted from the store (${name})`,
    async (t) => {
      const storage = await open(t);
      if (!storage) return;
      t.teardown(() => storage.close());
      const log = createDeliveryLog(storage, createDeliverySequence(storage, 'test-delivery'), {
        retention: 3,
        scanLimit: 100,
      });
      for (const [i, cid] of ['a', 'b', 'c', 'd', 'e'].entries()) {
        const reserved = await log.reserve('dev', 1);
        t.equal(reserved.first, i + 1);
        await reserved.store([record(reserved.first, cid)]);
      }
      // Two at once: the window moves by two.
      const two = await log.reserve('dev', 2);
      await two.store([record(two.first, 'f'), record(two.first + 1, 'g')]);
      const kv = storage.keyv<DeliveryRecord>('webhook-deliveries');
      const kept = await kv.getMany([1, 2, 3, 4, 5, 6, 7].map((seq) => `dev\u001f${seq}`));
      t.same(
        kept.map((r) => r?.connection_id ?? null),
        [null, null, null, null, 'e', 'f', 'g'],
        'the four that left the window are gone from the store',
      );
      const page = await log.list('dev', {}, 10);
      t.same(
        page.records.map((r) => r.connection_id),
        ['g', 'f', 'e'],
      );
      t.equal(page.next, null);
    },
  );
