import { randomBytes } from 'node:crypto';
import type { Cipher } from '../crypto/index.js';
import type { Environment } from '../environments/index.js';
import { createReadCache, type Storage } from '../storage/index.js';

/** What the API stored for an environment; a field never set falls back to the configured value. */
interface StoredSettings {
  /** null: cleared through the API (no webhooks even if one is configured). */
  webhook_url?: string | null;
  webhook_secondary_url?: string | null;
  /** Sealed. */
  signing_key?: string;
  signing_key_created_at?: string;
  updated_at?: string;
}

/** The settings in force for one environment. */
export interface WebhookSettings {
  webhook_url: string | null;
  webhook_secondary_url: string | null;
  signing_key: string;
  signing_key_created_at: string | null;
  /** `configured`: from the gateway options (SERVICE_WEBHOOK_SIGNING_KEY); `generated`: made by the gateway. */
  signing_key_source: 'configured' | 'generated';
}

export interface SettingsPatch {
  webhook_url?: string | null | undefined;
  webhook_secondary_url?: string | null | undefined;
}

export interface WebhookSettingsStore {
  get(env: string): Promise<WebhookSettings>;
  update(env: string, patch: SettingsPatch): Promise<WebhookSettings>;
  /** Replaces the signing key with a new random one and returns it. */
  rotateSigningKey(env: string): Promise<WebhookSettings>;
}

/** 32 random bytes; the prefix tells a reader which secret this is. */
/** Where webhook settings keep a sealed value, for key rotation (lib/keys): one entry per environment. */
export const sealedWebhookSettings = {
  namespace: 'webhook-settings',
  lock: (env: string) => `webhook-settings:${env}`,
  field: 'signing_key',
} as const;

export const generateSigningKey = () => `whsk_${randomBytes(32).toString('base64url')}`;

/**
 * Per-environment webhook settings in the store, signing key sealed. The gateway options (in the
 * standalone server, SERVICE_WEBHOOK_*) are the initial values: they apply until the API sets a
 * field. Without a configured key one is generated once and kept, never derived from the secret key.
 */
export function createWebhookSettingsStore(deps: {
  storage: Storage;
  cipher: Cipher;
  environments: readonly Environment[];
  cacheTtlMs: number;
}): WebhookSettingsStore {
  const { storage, cipher } = deps;
  const kv = storage.keyv<StoredSettings>(sealedWebhookSettings.namespace);
  const cache = createReadCache<WebhookSettings>({ ttlMs: storage.shared ? deps.cacheTtlMs : 3_600_000 });
  const configured = new Map(deps.environments.map((env) => [env.name, env]));
  const lock = sealedWebhookSettings.lock;

  const effective = (env: string, stored: StoredSettings): WebhookSettings => {
    const config = configured.get(env);
    const key = stored.signing_key ? cipher.open<string>(stored.signing_key) : config?.webhookSigningKey;
    if (!key) throw new Error(`environment "${env}" has no webhook signing key`);
    return {
      webhook_url: stored.webhook_url !== undefined ? stored.webhook_url : (config?.webhookUrl ?? null),
      webhook_secondary_url:
        stored.webhook_secondary_url !== undefined
          ? stored.webhook_secondary_url
          : (config?.webhookSecondaryUrl ?? null),
      signing_key: key,
      signing_key_created_at: stored.signing_key_created_at ?? null,
      signing_key_source: stored.signing_key ? 'generated' : 'configured',
    };
  };

  /** Writes under the environment's lock; a key is generated the first time one is needed. */
  const change = (env: string, edit: (stored: StoredSettings) => StoredSettings | undefined) =>
    storage.coordinator.withLock(lock(env), async () => {
      const stored = (await kv.get(env)) ?? {};
      const next = edit(stored);
      if (next) {
        await kv.set(env, { ...next, updated_at: new Date().toISOString() });
        cache.delete(env);
      }
      return effective(env, next ?? stored);
    });

  const withKey = (stored: StoredSettings): StoredSettings => ({
    ...stored,
    signing_key: cipher.seal(generateSigningKey()),
    signing_key_created_at: new Date().toISOString(),
  });

  const store: WebhookSettingsStore = {
    async get(env) {
      const found = await cache.load(env, async () => {
        const stored = (await kv.get(env)) ?? {};
        if (stored.signing_key || configured.get(env)?.webhookSigningKey) return effective(env, stored);
        return change(env, (current) => (current.signing_key ? undefined : withKey(current)));
      });
      return found as WebhookSettings;
    },
    update(env, patch) {
      return change(env, (stored) => ({
        ...stored,
        ...(patch.webhook_url !== undefined ? { webhook_url: patch.webhook_url } : {}),
        ...(patch.webhook_secondary_url !== undefined ? { webhook_secondary_url: patch.webhook_secondary_url } : {}),
      }));
    },
    rotateSigningKey(env) {
      return change(env, withKey);
    },
  };
  return store;
}
