import { createHash } from 'node:crypto';
import type { IndexPosition, OrderedIndex } from '../../../lib/storage/index.js';
import { evalCached, type RedisClient } from '../redis-client.js';

/**
 * A page after a cursor in one round trip: from the cursor's rank when it is still where the
 * cursor saw it (O(log n + page)); when it was removed or moved since, from its score.
 * Orders are unique by construction (createOrderClock), so the score path loses no ties, except
 * at order 0: a keyed list (every entry at 0, ordered by id) seeks by member, where the cursor
 * may be any string (a prefix). Redis orders equal scores by member bytes, as the other back ends do.
 */
const PAGE_SCRIPT = `
local limit = tonumber(ARGV[1])
local rev = ARGV[2] == '1'
local rank
if rev then rank = redis.call('ZREVRANK', KEYS[1], ARGV[4]) else rank = redis.call('ZRANK', KEYS[1], ARGV[4]) end
if rank and tonumber(redis.call('ZSCORE', KEYS[1], ARGV[4])) == tonumber(ARGV[3]) then
  if rev then return redis.call('ZREVRANGE', KEYS[1], rank + 1, rank + limit, 'WITHSCORES') end
  return redis.call('ZRANGE', KEYS[1], rank + 1, rank + limit, 'WITHSCORES')
end
if tonumber(ARGV[3]) == 0 then
  local ids
  if rev then ids = redis.call('ZREVRANGEBYLEX', KEYS[1], '(' .. ARGV[4], '-', 'LIMIT', 0, limit)
  else ids = redis.call('ZRANGEBYLEX', KEYS[1], '(' .. ARGV[4], '+', 'LIMIT', 0, limit) end
  local out = {}
  for i, id in ipairs(ids) do out[2 * i - 1] = id; out[2 * i] = '0' end
  return out
end
if rev then return redis.call('ZREVRANGEBYSCORE', KEYS[1], '(' .. ARGV[3], '-inf', 'WITHSCORES', 'LIMIT', 0, limit) end
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[3], '+inf', 'WITHSCORES', 'LIMIT', 0, limit)`;

/**
 * Lua that adds several lists' entries: for each of KEYS[first..last], the ARGV at `at` is its
 * number of entries, then come its (score, member) pairs. A `ZADD` per 256 pairs keeps the
 * arguments of one call within Lua's stack. Leaves `at` on the argument after the last pair.
 */
export const zaddListsLua = (first: string, last: string) => `
for i = ${first}, ${last} do
  local n = tonumber(ARGV[at])
  at = at + 1
  local j = 0
  while j < n do
    local args = {}
    local k = 0
    while j < n and k < 512 do
      args[k + 1] = ARGV[at]
      args[k + 2] = ARGV[at + 1]
      at = at + 2
      k = k + 2
      j = j + 1
    end
    redis.call('ZADD', KEYS[i], unpack(args))
  end
end`;

/**
 * Several lists' entries in one command: one for an import's entries (five lists, the search list
 * with several members) instead of one per list; atomic, as any script.
 */
const ADD_MANY_SCRIPT = `local at = 1${zaddListsLua('1', '#KEYS')}
return #KEYS`;
const ADD_MANY_SHA = createHash('sha1').update(ADD_MANY_SCRIPT).digest('hex');

/** The sorted set of a list: `<prefix>idx:<namespace>:<list>`. */
export const indexKey = (prefix: string, namespace: string, list: string) => `${prefix}idx:${namespace}:${list}`;

/** Entries grouped by list, as `zaddListsLua` reads them: the lists' keys, and per list its count then its pairs. */
export function zaddArguments(
  prefix: string,
  namespace: string,
  entries: readonly ({ list: string } & IndexPosition)[],
) {
  const byList = new Map<string, string[]>();
  for (const e of entries) {
    const members = byList.get(e.list) ?? [];
    members.push(String(e.order), e.id);
    byList.set(e.list, members);
  }
  const keys: string[] = [];
  const args: string[] = [];
  for (const [list, members] of byList) {
    keys.push(indexKey(prefix, namespace, list));
    args.push(String(members.length / 2), ...members);
  }
  return { keys, args };
}

/** Ordered lists as sorted sets: `<prefix>idx:<namespace>:<list>`, the order as score, the id as member. */
export function createRedisOrderedIndexes(client: RedisClient, prefix: string): (namespace: string) => OrderedIndex {
  return (namespace) => {
    const key = (list: string) => indexKey(prefix, namespace, list);
    const positions = (reply: unknown): IndexPosition[] => {
      const flat = reply as string[];
      const out: IndexPosition[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) out.push({ id: String(flat[i]), order: Number(flat[i + 1]) });
      return out;
    };
    return {
      async add(list, id, order) {
        await client.zAdd(key(list), { score: order, value: id });
      },
      async addMany(entries) {
        if (entries.length === 0) return;
        const { keys, args } = zaddArguments(prefix, namespace, entries);
        await evalCached(client, ADD_MANY_SCRIPT, ADD_MANY_SHA, { keys, arguments: args });
      },
      async remove(list, id) {
        await client.zRem(key(list), id);
      },
      async page(list, limit, after, reverse = false) {
        if (!after) {
          const range = reverse
            ? ['ZREVRANGE', key(list), '0', String(limit - 1), 'WITHSCORES']
            : ['ZRANGE', key(list), '0', String(limit - 1), 'WITHSCORES'];
          return positions(await client.sendCommand(range));
        }
        return positions(
          await client.eval(PAGE_SCRIPT, {
            keys: [key(list)],
            arguments: [String(limit), reverse ? '1' : '0', String(after.order), after.id],
          }),
        );
      },
      async count(list) {
        return client.zCard(key(list));
      },
    };
  };
}
