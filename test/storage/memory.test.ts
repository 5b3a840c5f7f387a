import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { runStorageContract } from './contract.js';

await runStorageContract(t, 'memory', () => createMemoryStorage());

t.test('memory storage describes itself', async (t) => {
  const storage = createMemoryStorage();
  t.teardown(() => storage.close());
  t.equal(storage.kind, 'memory');
  t.equal(storage.shared, false);
});

t.test('two memory storages share nothing (no module-level state)', async (t) => {
  const one = createMemoryStorage();
  const two = createMemoryStorage();
  t.teardown(async () => {
    await one.close();
    await two.close();
  });
  await one.keyv('ns').set('k', 'v');
  t.equal(await two.keyv('ns').get('k'), undefined);
  const lease = await one.coordinator.tryLock('lock', 5000);
  t.ok(await two.coordinator.tryLock('lock', 5000), 'locks are per storage');
  await lease?.release();
});
