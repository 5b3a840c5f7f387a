import type { IndexEntry, StorageInventory } from '../../../lib/storage/index.js';
import type { RedisClient } from '../redis-client.js';

const PAGE = 1_000;

/**
 * What a Redis store holds, found by SCAN under its prefix: `<prefix>kv:<namespace>::<key>` and
 * `<prefix>idx:<namespace>:<list>`. Index namespaces are the gateway's collection names, which
 * have no ':', so the first ':' ends the namespace (a list name may hold more).
 */
export function redisInventory(client: RedisClient, prefix: string): StorageInventory {
  const scan = async function* (match: string) {
    for await (const keys of client.scanIterator({ MATCH: match, COUNT: 1_000 })) yield* keys;
  };
  return {
    async namespaces() {
      const found = new Set<string>();
      const start = `${prefix}kv:`.length;
      for await (const key of scan(`${prefix}kv:*`)) {
        const end = key.indexOf('::', start);
        if (end > start) found.add(key.slice(start, end));
      }
      return [...found];
    },
    async *indexEntries() {
      const start = `${prefix}idx:`.length;
      for await (const key of scan(`${prefix}idx:*`)) {
        const colon = key.indexOf(':', start);
        if (colon < 0) continue;
        const namespace = key.slice(start, colon);
        const list = key.slice(colon + 1);
        for (let from = 0; ; from += PAGE) {
          const flat = (await client.sendCommand([
            'ZRANGE',
            key,
            String(from),
            String(from + PAGE - 1),
            'WITHSCORES',
          ])) as string[];
          const entries: IndexEntry[] = [];
          for (let i = 0; i + 1 < flat.length; i += 2)
            entries.push({ namespace, list, id: String(flat[i]), order: Number(flat[i + 1]) });
          if (entries.length > 0) yield entries;
          if (entries.length < PAGE) break;
        }
      }
    },
  };
}
