import { createHash } from 'node:crypto';
import type { ListedWrite } from '../../lib/storage/index.js';
import { indexKey, zaddArguments, zaddListsLua } from './ordered/redis.js';
import { evalCached, type RedisClient } from './redis-client.js';
import { valueNamespace } from './redis-reader/index.js';
import { serialize } from './serialize.js';

/**
 * KEYS[1] is the value's key, KEYS[2 .. 1 + ARGV[3]] the lists added to (their entries from
 * ARGV[4] on, as `zaddListsLua` reads them), the keys after them the lists removed from, one
 * member each in the ARGV that follow. ARGV[1] is `set` (the value's text in ARGV[2]) or `del`.
 * A script runs whole before any other command: no reader sees the value without its entries,
 * and an entry that cannot be added stops it before the value is written.
 */
const LISTED_WRITE_SCRIPT = `local at = 4
local last = 1 + tonumber(ARGV[3])${zaddListsLua('2', 'last')}
local existed = 1
if ARGV[1] == 'set' then redis.call('SET', KEYS[1], ARGV[2]) else existed = redis.call('DEL', KEYS[1]) end
for i = last + 1, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[at])
  at = at + 1
end
return existed`;
const LISTED_WRITE_SHA = createHash('sha1').update(LISTED_WRITE_SCRIPT).digest('hex');

/**
 * A value and its ordered-index entries in one command (`Storage.writeListed`), where the
 * collection would otherwise wait for the entries' answer before sending the value and for the
 * value's before taking old entries out. The value is written as Keyv writes it through
 * KeyvRedis (`<prefix>kv:<namespace>::<key>`, Keyv's text with no expiry), so Keyv reads it back.
 */
export function createRedisListedWrite(client: RedisClient, prefix: string) {
  return async (write: ListedWrite): Promise<boolean> => {
    const added = zaddArguments(prefix, write.namespace, write.add);
    const keys = [
      `${valueNamespace(prefix, write.namespace)}::${write.key}`,
      ...added.keys,
      ...write.remove.map((e) => indexKey(prefix, write.namespace, e.list)),
    ];
    const value = write.value === undefined ? ['del', ''] : ['set', serialize({ value: write.value })];
    const args = [...value, String(added.keys.length), ...added.args, ...write.remove.map((e) => e.id)];
    const existed = await evalCached(client, LISTED_WRITE_SCRIPT, LISTED_WRITE_SHA, { keys, arguments: args });
    return Number(existed) > 0;
  };
}
