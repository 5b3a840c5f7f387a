import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import type { Test } from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { answers, requireService } from './service.js';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** True when something answers on the Redis port. */
export const redisAnswers = (url = redisUrl) => answers(url, 6379);

/** Redis-backed tests: skipped without Redis, except under CI=true where they fail. */
export const requireRedis = async (t: Test) => requireService(t, 'Redis', redisUrl, await redisAnswers());

/** A key prefix unique to this run, so parallel tests never share Redis keys. */
export const uniquePrefix = (label: string) => `portico-test:${label}:${randomUUID()}:`;

/** Deletes every Redis key under `prefix` (what a test run wrote). */
export async function removeRedisKeys(prefix: string, url = redisUrl) {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}

/** A Redis storage under `label`'s prefix of its own, closed and its keys removed when `t` ends. */
async function openRedisStorage(t: Test, label: string) {
  if (!(await requireRedis(t))) return undefined;
  const prefix = uniquePrefix(label);
  const storage = createRedisStorage({ url: redisUrl, prefix });
  t.teardown(async () => {
    await storage.close();
    await removeRedisKeys(prefix);
  });
  return { storage, prefix };
}

/**
 * A Redis storage under a key prefix of its own, closed and its keys removed when `t` ends;
 * undefined when the test is skipped for want of Redis (`requireRedis`).
 */
export async function redisStorageFor(
  t: Test,
  label: string,
): Promise<ReturnType<typeof createRedisStorage> | undefined> {
  return (await openRedisStorage(t, label))?.storage;
}

/**
 * `redisStorageFor`'s storage with its key prefix and a client of the test's own on the same
 * Redis (closed when `t` ends): to put there what the storage never would, a key of the wrong
 * type, say.
 */
export async function redisStorageWithClient(t: Test, label: string) {
  const opened = await openRedisStorage(t, label);
  if (!opened) return undefined;
  const raw = createClient({ url: redisUrl });
  raw.on('error', () => {});
  await raw.connect();
  t.teardown(() => raw.close());
  return { ...opened, raw };
}
