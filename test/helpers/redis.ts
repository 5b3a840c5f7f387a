import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { createClient } from '@keyv/redis';
import type { Test } from 'tap';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** True when something answers on the Redis port. */
export function redisAnswers(url = redisUrl): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Redis-backed tests run when Redis answers; without it they skip with a reason,
 * except under CI=true where a missing Redis fails the test.
 */
export async function requireRedis(t: Test): Promise<boolean> {
  if (await redisAnswers()) return true;
  if (process.env.CI === 'true') {
    t.fail(`Redis does not answer at ${redisUrl}; under CI the Redis-backed tests are mandatory`);
    return false;
  }
  t.plan(0, `Redis does not answer at ${redisUrl}: skipped (start redis-server to run this test)`);
  return false;
}

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
