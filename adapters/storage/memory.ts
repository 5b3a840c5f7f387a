import Keyv from 'keyv';
import type { Storage } from '../../lib/storage/index.js';
import { createMemoryCoordinator } from './memory-coordinator.js';
import { createKeyvQueue } from './queue/keyv-queue.js';

/**
 * Everything in this process's memory: for tests, demos and single-process gateways that can
 * afford to lose their data on restart. One Map per namespace so that `clear()` on one
 * namespace (Keyv calls the store's `clear`) cannot touch another.
 */
export function createMemoryStorage(): Storage {
  const maps = new Map<string, Map<string, unknown>>();
  // One Keyv per namespace: same namespace → same data, and no listener pile-up on repeat calls.
  const keyvs = new Map<string, Keyv>();
  const coordinator = createMemoryCoordinator();

  const storage: Storage = {
    kind: 'memory',
    shared: false,
    keyv<T = unknown>(namespace: string): Keyv<T> {
      let keyv = keyvs.get(namespace);
      if (!keyv) {
        let map = maps.get(namespace);
        if (!map) maps.set(namespace, (map = new Map()));
        // throwOnErrors: a storage failure must reach the caller, not become a silent `undefined`.
        keyv = new Keyv({ store: map, namespace, throwOnErrors: true });
        keyvs.set(namespace, keyv);
      }
      return keyv as Keyv<T>;
    },
    coordinator,
    queue: (name, options) => createKeyvQueue(storage, name, options),
    async close() {
      await coordinator.close();
      keyvs.clear();
      // Empty the maps themselves: a caller may still hold a Keyv that points at one.
      for (const map of maps.values()) map.clear();
      maps.clear();
    },
  };
  return storage;
}
