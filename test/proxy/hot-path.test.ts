import t from 'tap';
import { createMemoryStorage, createRedisStorage } from '../../adapters/storage/index.js';
import { createLogger } from '../../lib/http/logger.js';
import type { Storage } from '../../lib/storage/index.js';
import { devKey, startGateway } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { redisUrl, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { providerEntry, send } from './helpers.js';

/** A storage that counts every Keyv operation, per kind, over a real memory storage. */
function countingStorage(options: { shared?: boolean; inner?: Storage } = {}) {
  const inner = options.inner ?? createMemoryStorage();
  const counts = { reads: 0, writes: 0 };
  const storage: Storage = {
    ...inner,
    shared: options.shared ?? inner.shared,
    close: () => inner.close(),
    keyv(namespace) {
      const keyv = inner.keyv(namespace);
      return new Proxy(keyv, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (property === 'get' || property === 'getMany' || property === 'has') counts.reads++;
            if (property === 'set' || property === 'delete' || property === 'clear') counts.writes++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as typeof keyv;
    },
  };
  return { storage, counts };
}

const control = { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' };

t.test('a warm proxied call reads nothing from the store and writes nothing', async (t) => {
  const provider = await fakeProvider();
  t.teardown(() => provider.close());
  const { storage, counts } = countingStorage();
  t.teardown(() => storage.close());
  const gw = await startGateway(t, { storage, providers: [providerEntry('fake-api', provider.url)] });
  await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'key-1' } },
  });
  t.equal((await send(gw.url, 'GET', '/proxy/warm', control)).status, 200);
  const before = { ...counts };
  for (let i = 0; i < 50; i++) t.equal((await send(gw.url, 'GET', `/proxy/v1/items/${i}`, control)).status, 200);
  t.same(counts, before, '50 proxied calls: no store read, no store write');

  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'key-2' } },
  });
  await send(gw.url, 'GET', '/proxy/after-write', control);
  t.equal(
    provider.received.at(-1)?.headers.authorization,
    'Bearer key-2',
    'a write through this gateway is seen at once',
  );
});

t.test("gateways sharing a store (Redis) see each other's writes within the cache TTL", async (t) => {
  if (!(await requireRedis(t))) return;
  const provider = await fakeProvider();
  t.teardown(() => provider.close());
  const prefix = uniquePrefix('proxy-hot-path');
  const a = countingStorage({ inner: createRedisStorage({ url: redisUrl, prefix }) });
  const b = countingStorage({ inner: createRedisStorage({ url: redisUrl, prefix }) });
  t.teardown(async () => {
    await a.storage.close();
    await b.storage.close();
  });
  const logger = createLogger({ level: 'silent' });
  const providers = [providerEntry('fake-api', provider.url)];
  const gwA = await startGateway(t, { storage: a.storage, providers, logger, cacheTtlMs: 300 });
  const gwB = await startGateway(t, { storage: b.storage, providers, logger, cacheTtlMs: 300 });
  await gwB.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  await gwB.call('POST', '/connections', {
    body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'key-1' } },
  });
  await send(gwA.url, 'GET', '/proxy/warm', control);
  const { reads, writes } = a.counts;
  await send(gwA.url, 'GET', '/proxy/again', control);
  t.equal(a.counts.reads, reads, 'within the TTL, no store read');

  await gwB.call('POST', '/connections', {
    body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey: 'key-2' } },
  });
  let seen = '';
  for (let i = 0; i < 100 && seen !== 'Bearer key-2'; i++) {
    await send(gwA.url, 'GET', '/proxy/poll', control);
    seen = String(provider.received.at(-1)?.headers.authorization);
    if (seen !== 'Bearer key-2') await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.equal(seen, 'Bearer key-2', "the other gateway's write is picked up once the short TTL runs out");
  t.equal(a.counts.writes, writes, 'proxying through gateway A wrote nothing');
});
