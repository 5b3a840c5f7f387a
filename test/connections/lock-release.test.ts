import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import type { Lease } from '../../lib/coordination/coordinator.js';
import type { Storage } from '../../lib/storage/index.js';
import { startGateway } from '../helpers/gateway.js';

/**
 * A store that takes a connection's lock, writes, and then fails to release the lock: the
 * store went away between the write and the release. The lock then expires at its ttl.
 */
function storeThatLosesReleases(): { storage: Storage; releases: () => number } {
  const base = createMemoryStorage();
  let releases = 0;
  const failing = (lease: Lease): Lease => ({
    renew: (ttlMs) => lease.renew(ttlMs),
    async release() {
      releases++;
      await lease.release();
      throw new Error('connection reset while releasing');
    },
  });
  const storage: Storage = {
    ...base,
    coordinator: {
      ...base.coordinator,
      tryLock: async (key, ttlMs) => {
        const lease = await base.coordinator.tryLock(key, ttlMs);
        return lease && key.startsWith('connection:') ? failing(lease) : lease;
      },
    },
  };
  return { storage, releases: () => releases };
}

t.test('a write that was stored is answered as stored, even when releasing its lock fails', async (t) => {
  const { storage, releases } = storeThatLosesReleases();
  t.teardown(() => storage.close());
  const gw = await startGateway(t, { storage });
  await gw.call('POST', '/integrations', { body: { unique_key: 'stripe', provider: 'stripe' } });

  const imported = await gw.call('POST', '/connections', {
    body: { provider_config_key: 'stripe', connection_id: 'c-1', credentials: { type: 'API_KEY', apiKey: 'sk_1' } },
  });
  t.equal(imported.status, 201, imported.text);
  t.ok(releases() >= 1, 'the release was tried, and failed');
  const fetched = await gw.call('GET', '/connections/c-1?provider_config_key=stripe');
  t.equal(fetched.json.data.credentials.apiKey, 'sk_1', 'stored');

  const patched = await gw.call('PATCH', '/connections/c-1?provider_config_key=stripe', {
    body: { end_user: { id: 'eu-1' } },
  });
  t.equal(patched.status, 200, patched.text);
  t.same((await gw.call('GET', '/connections/c-1?provider_config_key=stripe')).json.data.end_user, { id: 'eu-1' });
});
