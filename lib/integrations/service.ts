import type { Cipher } from '../crypto/index.js';
import { fail } from '../errors.js';
import type { Catalog } from '../providers/index.js';
import { allList, createCollection, createReadCache, type IndexPosition, type Storage } from '../storage/index.js';
import type { Branding } from './branding.js';
import type { Integration, StoredIntegration } from './integration.js';
import type { IntegrationCredentials } from './schema.js';

export interface IntegrationInput {
  unique_key: string;
  provider: string;
  display_name?: string | undefined;
  credentials?: IntegrationCredentials | undefined;
  branding?: Branding | undefined;
}

export interface IntegrationUpdate {
  display_name?: string | undefined;
  credentials?: IntegrationCredentials | null | undefined;
  branding?: Branding | null | undefined;
}

/** An empty branding object means none. */
const brandingOrNull = (branding: Branding | null | undefined): Branding | null =>
  branding && Object.values(branding).some((v) => v !== undefined) ? { ...branding } : null;

export interface IntegrationService {
  create(env: string, input: IntegrationInput): Promise<Integration>;
  get(env: string, uniqueKey: string): Promise<Integration | undefined>;
  /** Like `get`, but 404 `unknown_integration` when missing. Cached for the hot path. */
  require(env: string, uniqueKey: string): Promise<Integration>;
  /** The in-process cached integration, or undefined (then `require` reads the store). No await on the hot path. */
  cached(env: string, uniqueKey: string): Integration | undefined;
  /** Every integration of the environment, oldest first (read from its ordered index, a page at a time). */
  list(env: string): Promise<Integration[]>;
  /** Moves integrations stored by an older layout into the index (run once at start). */
  upgrade(): Promise<number>;
  update(env: string, uniqueKey: string, update: IntegrationUpdate): Promise<Integration>;
  delete(env: string, uniqueKey: string): Promise<boolean>;
}

/** Where integrations keep a sealed value, for key rotation (lib/keys): collection, entry lock, field. */
export const sealedIntegrations = {
  collection: 'integrations',
  lock: (env: string, id: string) => `integration:${env}:${id}`,
  field: 'credentials',
} as const;

export interface IntegrationServiceDeps {
  storage: Storage;
  cipher: Cipher;
  catalog: Catalog;
  /** How long another process's change may go unseen (only when the storage is shared). */
  cacheTtlMs: number;
}

export function createIntegrationService(deps: IntegrationServiceDeps): IntegrationService {
  const { cipher, catalog } = deps;
  const store = createCollection<StoredIntegration>(deps.storage, sealedIntegrations.collection);
  const cache = createReadCache<Integration>({ ttlMs: deps.storage.shared ? deps.cacheTtlMs : 3_600_000 });
  const cacheKey = (env: string, key: string) => `${env}\u001f${key}`;

  const open = (env: string, stored: StoredIntegration): Integration => ({
    environment: env,
    unique_key: stored.unique_key,
    provider: stored.provider,
    display_name: stored.display_name,
    auth_mode: catalog.get(stored.provider)?.auth_mode ?? 'NONE',
    credentials: stored.credentials ? cipher.open<IntegrationCredentials>(stored.credentials) : null,
    branding: brandingOrNull(stored.branding),
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  });

  const checkMode = (provider: string, credentials: IntegrationCredentials | null | undefined) => {
    const mode = catalog.get(provider)?.auth_mode;
    if (!credentials || !mode) return;
    if (credentials.type !== mode) {
      fail(
        'invalid_credentials',
        `credentials.type ${credentials.type} does not fit provider "${provider}" (auth mode ${mode}).`,
        { field: 'credentials.type' },
      );
    }
  };

  const service: IntegrationService = {
    async create(env, input) {
      if (!catalog.get(input.provider))
        fail('unknown_provider', `No provider named "${input.provider}" in the catalog.`, { field: 'provider' });
      checkMode(input.provider, input.credentials);
      return deps.storage.coordinator.withLock(sealedIntegrations.lock(env, input.unique_key), async () => {
        if (await store.get(env, input.unique_key)) {
          fail('integration_exists', `An integration with unique_key "${input.unique_key}" already exists.`);
        }
        const now = new Date().toISOString();
        const stored: StoredIntegration = {
          unique_key: input.unique_key,
          provider: input.provider,
          display_name: input.display_name ?? catalog.get(input.provider)?.display_name ?? input.provider,
          credentials: input.credentials ? cipher.seal(input.credentials) : null,
          branding: brandingOrNull(input.branding),
          created_at: now,
          updated_at: now,
        };
        await store.put(env, input.unique_key, stored, undefined);
        cache.delete(cacheKey(env, input.unique_key));
        return open(env, stored);
      });
    },
    async get(env, uniqueKey) {
      return cache.load(cacheKey(env, uniqueKey), async () => {
        const stored = await store.get(env, uniqueKey);
        return stored ? open(env, stored) : undefined;
      });
    },
    async require(env, uniqueKey) {
      return (
        (await service.get(env, uniqueKey)) ??
        fail('unknown_integration', `No integration with unique_key "${uniqueKey}".`)
      );
    },
    cached(env, uniqueKey) {
      return cache.get(cacheKey(env, uniqueKey));
    },
    async list(env) {
      const out: Integration[] = [];
      let after: IndexPosition | undefined;
      for (;;) {
        const positions = await store.page(env, allList, 200, after);
        const found = await store.getMany(
          env,
          positions.map((p) => p.id),
        );
        for (const s of found) if (s) out.push(open(env, s));
        after = positions.at(-1);
        if (positions.length < 200) return out;
      }
    },
    upgrade: () => store.upgrade(),
    async update(env, uniqueKey, update) {
      return deps.storage.coordinator.withLock(sealedIntegrations.lock(env, uniqueKey), async () => {
        const stored = await store.get(env, uniqueKey);
        if (!stored) fail('unknown_integration', `No integration with unique_key "${uniqueKey}".`);
        checkMode(stored.provider, update.credentials);
        const next: StoredIntegration = {
          ...stored,
          ...(update.display_name !== undefined ? { display_name: update.display_name } : {}),
          ...(update.credentials !== undefined
            ? { credentials: update.credentials === null ? null : cipher.seal(update.credentials) }
            : {}),
          ...(update.branding !== undefined ? { branding: brandingOrNull(update.branding) } : {}),
          updated_at: new Date().toISOString(),
        };
        await store.put(env, uniqueKey, next, stored);
        cache.delete(cacheKey(env, uniqueKey));
        return open(env, next);
      });
    },
    async delete(env, uniqueKey) {
      const existed = await store.delete(env, uniqueKey, await store.get(env, uniqueKey));
      cache.delete(cacheKey(env, uniqueKey));
      return existed;
    },
  };
  return service;
}
