import type { IndexPosition, OrderedIndex } from '../../../lib/storage/index.js';
import type { RedisClient } from '../redis.js';

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

/** Ordered lists as sorted sets: `<prefix>idx:<namespace>:<list>`, the order as score, the id as member. */
export function createRedisOrderedIndexes(client: RedisClient, prefix: string): (namespace: string) => OrderedIndex {
  return (namespace) => {
    const key = (list: string) => `${prefix}idx:${namespace}:${list}`;
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
        const byList = new Map<string, { score: number; value: string }[]>();
        for (const e of entries) {
          const members = byList.get(e.list) ?? [];
          members.push({ score: e.order, value: e.id });
          byList.set(e.list, members);
        }
        // Issued together: node-redis pipelines commands sent in the same tick.
        await Promise.all([...byList].map(([list, members]) => client.zAdd(key(list), members)));
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
