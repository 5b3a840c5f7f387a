import type { Storage } from '../storage/index.js';

/**
 * A connection's own webhook URL: when set, that connection's events go there instead of to the
 * environment's URLs. Kept apart from the connection record (the connections feature owns that),
 * keyed by environment, integration and connection id.
 */
export interface ConnectionWebhookUrls {
  get(env: string, providerConfigKey: string, connectionId: string): Promise<string | undefined>;
  set(env: string, providerConfigKey: string, connectionId: string, url: string): Promise<void>;
  delete(env: string, providerConfigKey: string, connectionId: string): Promise<boolean>;
}

export function createConnectionWebhookUrls(storage: Storage): ConnectionWebhookUrls {
  const kv = storage.keyv<string>('webhook-connection-urls');
  const key = (env: string, pck: string, cid: string) => `${env}\u001f${pck}\u001f${cid}`;
  return {
    async get(env, pck, cid) {
      return (await kv.get(key(env, pck, cid))) ?? undefined;
    },
    async set(env, pck, cid, url) {
      await kv.set(key(env, pck, cid), url);
    },
    delete: (env, pck, cid) => kv.delete(key(env, pck, cid)),
  };
}
