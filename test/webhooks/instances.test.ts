import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { devKey, prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { sharedStores } from '../helpers/shared-stores.js';
import { fastPolicy, importConnection, receiver, waitFor, withStripe } from './helpers.js';

// The same proof on every store several instances can share.
for (const store of sharedStores)
  t.test(`three gateway instances on one ${store.name}: every event is delivered by exactly one of them`, async (t) => {
    if (!(await store.require(t))) return;
    const open = store.place(t, 'webhook-instances');
    const hook = await receiver();
    t.teardown(() => hook.close());
    const instances: TestGateway[] = [];
    for (let i = 0; i < 3; i++) {
      // Each instance has its own connections, as separate processes would.
      const storage = open();
      const gw = await startGateway(t, {
        storage,
        environments: [
          {
            name: 'dev',
            secretKey: devKey,
            webhookUrl: hook.url,
            webhookSigningKey: 'whsk_shared_key_0123456789abcdef',
          },
          { name: 'prod', secretKey: prodKey },
        ],
        webhooks: { ...fastPolicy, concurrency: 5 },
      });
      t.teardown(() => storage.close());
      instances.push(gw);
    }
    t.equal(instances[0]?.gateway.webhooks.queueKind, store.queueKind, "the queue is the store's own");
    await withStripe(instances[0] as TestGateway);

    // 30 auth events (connection imports) and 30 sync events, accepted by all three instances in turn.
    const expected = 60;
    for (let i = 0; i < 30; i++) {
      const gw = instances[i % 3] as TestGateway;
      await importConnection(gw, `c${i}`);
      await gw.gateway.webhooks.send('dev', {
        type: 'sync',
        connection_id: `c${i}`,
        provider_config_key: 'stripe',
        sync_name: 'invoices',
        model: 'Invoice',
        success: true,
        results: { added: i, updated: 0, deleted: 0 },
        started_at: new Date().toISOString(),
        finished_at: new Date().toISOString(),
      });
    }
    await waitFor(() => hook.received.length >= expected, `${expected} deliveries`, 20_000);
    await sleep(500); // room for a duplicate to show up, were there one
    const ids = hook.payloads().map((p) => p.delivery_id as string);
    t.equal(ids.length, expected, 'no extra requests');
    t.equal(new Set(ids).size, expected, 'each delivery id once');
    t.same(
      hook
        .payloads()
        .filter((p) => p.type === 'sync')
        .map((p) => p.results.added)
        .sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, i) => i),
    );

    const records = (await (instances[2] as TestGateway).call('GET', '/webhooks/deliveries?limit=500')).json.data;
    t.equal(records.length, expected, 'every instance sees the one shared history');
    t.ok(
      records.every((r: { state: string; attempts: unknown[] }) => r.state === 'delivered' && r.attempts.length === 1),
      'one attempt each',
    );
  });
