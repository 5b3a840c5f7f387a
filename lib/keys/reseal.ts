import { sealedConnections } from '../connections/index.js';
import type { Cipher } from '../crypto/index.js';
import { sealedIntegrations } from '../integrations/index.js';
import { allList, createCollection, type IndexPosition, type Storage } from '../storage/index.js';
import { sealedWebhookSettings } from '../webhooks/index.js';

/** What one pass found in one place of one environment. */
export interface ResealProgress {
  environment: string;
  /** `connections`, `integrations` or `webhook-settings`. */
  place: string;
  checked: number;
  resealed: number;
  /** Boxes no configured key opens: they stay as they are, and the pass reports them. */
  unreadable: number;
}

/** Entries of one place that may hold a sealed value, read and written under that entry's lock. */
interface Place {
  name: string;
  field: string;
  ids(env: string): AsyncIterable<string>;
  get(env: string, id: string): Promise<Record<string, unknown> | undefined>;
  put(env: string, id: string, value: Record<string, unknown>): Promise<void>;
  lock(env: string, id: string): string;
}

function places(storage: Storage): Place[] {
  const collection = (spot: typeof sealedConnections | typeof sealedIntegrations): Place => {
    const store = createCollection<Record<string, unknown> & { order?: number }>(storage, spot.collection);
    // Every id of the scope, a page of its `all` list at a time.
    async function* ids(env: string) {
      let after: IndexPosition | undefined;
      for (;;) {
        const page = await store.page(env, allList, 500, after);
        for (const position of page) yield position.id;
        if (page.length < 500) return;
        after = page[page.length - 1];
      }
    }
    return {
      name: spot.collection,
      field: spot.field,
      ids,
      lock: spot.lock,
      get: (env, id) => store.get(env, id),
      put: async (env, id, v) => {
        await store.put(env, id, v, await store.get(env, id));
      },
    };
  };
  const settings = storage.keyv<Record<string, unknown>>(sealedWebhookSettings.namespace);
  return [
    collection(sealedConnections),
    collection(sealedIntegrations),
    {
      name: sealedWebhookSettings.namespace,
      field: sealedWebhookSettings.field,
      ids: async function* () {
        yield '';
      },
      get: async (env) => (await settings.get(env)) ?? undefined,
      put: async (env, _id, value) => {
        await settings.set(env, value);
      },
      lock: (env) => sealedWebhookSettings.lock(env),
    },
  ];
}

/**
 * Key rotation's second half: every value sealed under an older key is sealed again under the
 * current one (the first key of SERVICE_ENCRYPTION_KEY), each entry under the same lock its
 * feature writes it with, so a token refresh running meanwhile is never overwritten. A pass
 * can stop anywhere and be run again: what is already current is only read. Once a pass
 * reports nothing left under an old key (and nothing unreadable), the old key can be dropped.
 */
export async function resealAll(
  deps: { storage: Storage; cipher: Cipher; environments: readonly string[] },
  progress: (step: ResealProgress) => void = () => {},
): Promise<ResealProgress[]> {
  const { storage, cipher } = deps;
  const steps: ResealProgress[] = [];
  for (const environment of deps.environments) {
    for (const place of places(storage)) {
      const step: ResealProgress = { environment, place: place.name, checked: 0, resealed: 0, unreadable: 0 };
      for await (const id of place.ids(environment)) {
        await storage.coordinator.withLock(place.lock(environment, id), async () => {
          const entry = await place.get(environment, id);
          const box = entry?.[place.field];
          if (!entry || typeof box !== 'string') return;
          step.checked++;
          if (!cipher.isStale(box)) return;
          let plain: unknown;
          try {
            plain = cipher.open(box);
          } catch {
            step.unreadable++;
            return;
          }
          await place.put(environment, id, { ...entry, [place.field]: cipher.seal(plain) });
          step.resealed++;
        });
      }
      steps.push(step);
      progress(step);
    }
  }
  return steps;
}
