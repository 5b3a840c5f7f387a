import type { OrderedIndex, PageSource } from '../../../lib/storage/index.js';
import { storedValue } from '../deserialize.js';
import type { RedisClient } from '../redis-client.js';

/** Where the Redis storage keeps a Keyv namespace's values: KeyvRedis writes each under `<this>::<key>`. */
export const valueNamespace = (prefix: string, namespace: string) => `${prefix}kv:${namespace}`;

/**
 * A page's reads on Redis, as `Collection.pageText` makes them through Keyv: the list's positions
 * from its sorted set (ordered/redis.ts), then the values in one MGET, each the text Keyv
 * wrote (`{"value":…,"expires":…}`), read as Keyv reads it (none when absent or expired).
 */
export function redisPageSource(
  client: RedisClient,
  index: (namespace: string) => OrderedIndex,
  prefix: string,
  namespace: string,
): PageSource {
  const list = index(namespace);
  const at = `${valueNamespace(prefix, namespace)}::`;
  return {
    positions: (name, limit, after, reverse) => list.page(name, limit, after, reverse),
    async values(keys) {
      if (keys.length === 0) return [];
      const texts = await client.mGet(keys.map((key) => at + key));
      return texts.map((text) => storedValue(text ?? undefined));
    },
  };
}
