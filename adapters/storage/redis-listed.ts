import { createHash } from 'node:crypto';
import type { ListedWrite } from '../../lib/storage/index.js';
import { indexKey, zaddArguments, zaddListsLua } from './ordered/redis.js';
import { evalCached, type RedisClient } from './redis-client.js';
import { valueNamespace } from './redis-reader/index.js';
import { serialize } from './serialize.js';

/**
 * ARGV[1] is the number of writes. Each write then takes, in order, from KEYS: its value's key,
 * the lists added to, the lists removed from; from ARGV: `set` (the value's text next) or `del`
 * (then an empty string), its number of lists added to and of entries removed, the entries added
 * (as `zaddListsLua` reads them) and the members removed, one per list removed from. Per write:
 * the entries added, then the value, then the entries removed. A script runs whole before any
 * other command, so no reader sees a value without its entries; a command refused stops it there,
 * before the value of the write it belongs to and before every later write.
 */
const LISTED_WRITE_SCRIPT = `local at = 2
local nk = 1
local out = {}
for w = 1, tonumber(ARGV[1]) do
  local mode, value, lists, removes = ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3])
  local valueKey = KEYS[nk]
  at = at + 4${zaddListsLua('nk + 1', 'nk + lists')}
  nk = nk + lists + 1
  if mode == 'set' then
    redis.call('SET', valueKey, value)
    out[w] = 1
  else
    out[w] = redis.call('DEL', valueKey)
  end
  for r = 1, removes do
    redis.call('ZREM', KEYS[nk], ARGV[at])
    nk = nk + 1
    at = at + 1
  end
end
return out`;
const LISTED_WRITE_SHA = createHash('sha1').update(LISTED_WRITE_SCRIPT).digest('hex');

/**
 * Values and their ordered-index entries in one command (`Storage.writeListed`), where callers
 * would otherwise wait for each write's answer before sending the next. A value is written as
 * Keyv writes it through KeyvRedis (`<prefix>kv:<namespace>::<key>`, Keyv's text with no expiry),
 * so Keyv reads it back.
 */
export function createRedisListedWrite(client: RedisClient, prefix: string) {
  return async (writes: readonly ListedWrite[]): Promise<boolean[]> => {
    if (writes.length === 0) return [];
    const keys: string[] = [];
    const args = [String(writes.length)];
    for (const write of writes) {
      const added = zaddArguments(prefix, write.namespace, write.add);
      keys.push(
        `${valueNamespace(prefix, write.namespace)}::${write.key}`,
        ...added.keys,
        ...write.remove.map((e) => indexKey(prefix, write.namespace, e.list)),
      );
      args.push(
        ...(write.value === undefined ? ['del', ''] : ['set', serialize({ value: write.value })]),
        String(added.keys.length),
        String(write.remove.length),
        ...added.args,
        ...write.remove.map((e) => e.id),
      );
    }
    const answers = await evalCached(client, LISTED_WRITE_SCRIPT, LISTED_WRITE_SHA, { keys, arguments: args });
    return (answers as unknown[]).map((n) => Number(n) > 0);
  };
}
