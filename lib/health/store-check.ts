import type { Storage } from '../storage/index.js';
import type { ReadinessCheck } from './readiness.js';

/**
 * The store answers a read (through the gateway's guarded storage, so bounded in time). A read
 * and not a write: a load balancer probing every few seconds should not write to the store.
 */
export function storeCheck(storage: Storage): ReadinessCheck {
  const probe = storage.keyv<string>('health');
  return async () => {
    try {
      await probe.get('probe');
      return { ok: true };
    } catch {
      return { ok: false, detail: `the ${storage.kind} store is not answering` };
    }
  };
}
