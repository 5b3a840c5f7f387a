import t, { type Test } from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createDeliveryLog, type DeliveryRecord } from '../../lib/webhooks/deliveries.js';
import { createDeliverySequence } from '../../lib/webhooks/sequence.js';
import { startGateway } from '../helpers/gateway.js';
import { redisStorageFor } from '../helpers/redis.js';
import { importConnection, withStripe } from './helpers.js';

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

for (const [name, open] of [
  ['memory', async () => createMemoryStorage()],
  ['Redis', (t: Test) => redisStorageFor(t, 'delivery-log-gateway')],
] as const)
  t.test(`an event's feed entry and delivery record are stored together, the window kept (${name})`, async (t) => {
    const storage = await open(t);
    if (!storage) return;
    t.teardown(() => storage.close());
    const gw = await startGateway(t, { storage, webhooks: { retention: 3 } });
    await withStripe(gw);
    for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) await importConnection(gw, id);
    const feed = await gw.call('GET', '/webhooks/events');
    t.same(
      feed.json.data.map((e: { seq: number; connection_id: string }) => [e.seq, e.connection_id]),
      [
        [3, 'c3'],
        [4, 'c4'],
        [5, 'c5'],
      ],
      'the feed holds the newest three events',
    );
    const history = await gw.call('GET', '/webhooks/deliveries');
    t.same(
      history.json.data.map((r: { connection_id: string; state: string }) => [r.connection_id, r.state]),
      [
        ['c5', 'skipped'],
        ['c4', 'skipped'],
        ['c3', 'skipped'],
      ],
      'and the history the newest three records',
    );
    const gone = (namespace: string) => storage.keyv(namespace).getMany(['dev\u001f1', 'dev\u001f2', 'dev\u001f3']);
    t.same(
      (await gone('webhook-events')).map((v) => v !== undefined),
      [false, false, true],
      'the events that left the window are gone from the store',
    );
    t.same(
      (await gone('webhook-deliveries')).map((v) => v !== undefined),
      [false, false, true],
      'and so are their records',
    );
  });
