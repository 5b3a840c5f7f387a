import { randomUUID } from 'node:crypto';
import { deserialize } from './deserialize.js';
import { serialize } from './serialize.js';
import Keyv from 'keyv';
import { waitForLock, type Coordinator, type Lease, type LockOptions } from '../../lib/coordination/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { redisInventory } from './inventory/redis.js';
import { createRedisOrderedIndexes } from './ordered/redis.js';
import { loadKeyvRedis } from './libraries.js';
import { createBullmqQueue } from './queue/bullmq-queue.js';
import { createRedisClient, type RedisClient } from './redis-client.js';
import { createRedisListedWrite } from './redis-listed.js';
import { createRedisPageReader, valueNamespace } from './redis-reader/index.js';
import type { PageReaderLimits } from './page-worker/reader.js';

export type { RedisClient } from './redis-client.js';

export interface RedisStorageOptions {
  url: string;
  /** Every key lives under this prefix. Default `portico:`; tests use a unique one per run. */
  prefix?: string;
  /**
   * Connection errors (Redis down, reconnecting). The client reconnects by itself, so these
   * are for logging; the default ignores them.
   */
  onError?: (error: unknown) => void;
  /**
   * Longest a command waits to be sent (while Redis is away, commands wait in the client's
   * offline queue): past it the command fails, so callers answer 503 instead of hanging.
   * Default 1 s. The gateway bounds every command's whole round trip too (`storeTimeoutMs`).
   */
  commandTimeoutMs?: number;
  /** Most commands waiting in the client's queue; beyond, commands fail at once. Default 100 000 (a `setMany` of n keys is n commands). */
  maxQueuedCommands?: number;
  /**
   * Listing pages read on a worker thread with a client of its own (redis-reader/); false reads
   * them on the caller's. Default true. An object: on, with the reader's limits.
   */
  pageReader?: boolean | PageReaderLimits;
}

/**
 * Keyv namespaces and coordination on one Redis. `shared`: several gateway processes may point
 * at the same Redis and see the same data, locks and counters.
 * Layout: `<prefix>kv:<namespace>::<key>`, `<prefix>lock:<key>`, `<prefix>count:<key>`,
 * `<prefix>idx:<namespace>:<list>` (ordered indexes) —
 * distinct sub-prefixes so no namespace or key name can collide with a lock or counter.
 */
export function createRedisStorage(options: RedisStorageOptions): Storage {
  const prefix = options.prefix ?? 'portico:';
  const onError = options.onError ?? (() => {});
  const clientOptions = {
    url: options.url,
    commandTimeoutMs: options.commandTimeoutMs,
    maxQueuedCommands: options.maxQueuedCommands,
  };
  const client = createRedisClient({ ...clientOptions, onError });
  // Each namespace's KeyvRedis adds its own listeners to this one client; namespaces are cached
  // below, so the count is bounded by the number of namespaces, not by calls.
  client.setMaxListeners(0);
  // Connect now, once: KeyvRedis connects lazily per adapter, and two adapters racing to
  // connect the same client fail with "Socket already opened". Until ready, commands queue.
  const connecting = client.connect().then(
    () => undefined,
    (error: unknown) => onError(error),
  );
  // KeyvRedis connects a client it finds closed before each command: after close() that would
  // open the connection again, answer as if nothing had closed, and hold the process open for
  // good. A closed storage stays closed: its commands fail.
  let closed = false;
  const connect = client.connect.bind(client);
  client.connect = () => (closed ? Promise.reject(new Error('storage: closed')) : connect());

  const keyvs = new Map<string, Keyv>();
  // The values are read through the same client: a read sent after a lock's SET runs after it.
  const coordinator = createRedisCoordinator({ client, prefix, ordersReads: true });
  const index = createRedisOrderedIndexes(client, prefix);
  const pages =
    options.pageReader === false
      ? undefined
      : createRedisPageReader({
          ...(typeof options.pageReader === 'object' ? options.pageReader : {}),
          ...clientOptions,
          prefix,
          client,
          index,
        });

  return {
    kind: 'redis',
    shared: true,
    keyv<T = unknown>(namespace: string): Keyv<T> {
      let keyv = keyvs.get(namespace);
      if (!keyv) {
        const redisNamespace = valueNamespace(prefix, namespace);
        // throwOnErrors: a Redis failure must reach the caller, not become a silent `undefined`.
        const store = new (loadKeyvRedis().default)(client, { namespace: redisNamespace, throwOnErrors: true });
        // useKeyPrefix false: KeyvRedis already prefixes with its namespace; Keyv would add a second.
        keyv = new Keyv({
          store,
          namespace: redisNamespace,
          useKeyPrefix: false,
          throwOnErrors: true,
          serialize,
          deserialize,
        });
        keyvs.set(namespace, keyv);
      }
      return keyv as Keyv<T>;
    },
    coordinator,
    index,
    writeListed: createRedisListedWrite(client, prefix),
    pages,
    // BullMQ opens its own connections (blocking reads need one of their own).
    queue: (name, queueOptions) => createBullmqQueue(name, { ...queueOptions, url: options.url, prefix }),
    inventory: redisInventory(client, prefix),
    async close() {
      closed = true;
      await coordinator.close();
      await pages?.close();
      keyvs.clear();
      await closeClient(client, connecting);
    },
  };
}

/** Deletes the lock only if it still holds our token: after expiry it may belong to someone else. */
const RELEASE_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
/** Moves the lock's expiry only if it still holds our token. */
const RENEW_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

/**
 * Locks and counters on Redis, so several gateway processes exclude each other.
 * Uses a client it does not own: `close()` leaves the connection to whoever opened it.
 * `ordersReads`: the store's reads go through the same client (one connection, commands run in
 * the order sent), so a read under a lock may be sent right behind the lock's SET.
 */
export function createRedisCoordinator(options: {
  client: RedisClient;
  prefix?: string;
  ordersReads?: boolean;
}): Coordinator {
  const { client } = options;
  const prefix = options.prefix ?? 'portico:';

  const tryLock = async (key: string, ttlMs: number): Promise<Lease | null> => {
    const lockKey = `${prefix}lock:${key}`;
    const token = randomUUID();
    // PX takes a positive integer.
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const reply = await client.set(lockKey, token, { condition: 'NX', expiration: { type: 'PX', value: ttl } });
    if (reply === null) return null;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await client.eval(RELEASE_SCRIPT, { keys: [lockKey], arguments: [token] });
      },
      renew: async (renewMs: number) => {
        if (released) return false;
        const ms = String(Math.max(1, Math.ceil(renewMs)));
        return (await client.eval(RENEW_SCRIPT, { keys: [lockKey], arguments: [token, ms] })) === 1;
      },
    };
  };

  return {
    tryLock,
    withLock: <T, R>(key: string, fn: (read: R) => Promise<T>, lockOptions?: LockOptions<R>) =>
      waitForLock(tryLock, key, fn, lockOptions, options.ordersReads),
    // INCRBY is atomic on the server; `by` must be an integer.
    increment: (key: string, by = 1) => client.incrBy(`${prefix}count:${key}`, by),
    close: async () => {},
    ordersReads: options.ordersReads === true,
  };
}

/** How long `close()` waits for a connection still being opened, or for pending replies, before abandoning it. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Graceful close when connected (pending replies arrive first). A client still opening its
 * first socket cannot be stopped by `destroy()` — the socket would finish connecting afterwards
 * and keep the process alive — so wait for that attempt (bounded: Redis may be down) first.
 */
async function closeClient(client: RedisClient, connecting: Promise<void>): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) await settleWithin(connecting, CLOSE_GRACE_MS);
  // Graceful, but bounded: a reply that never comes (a connection half-dead after an outage) must not hold close().
  if (client.isReady)
    await settleWithin(
      client.close().catch(() => undefined),
      CLOSE_GRACE_MS,
    );
  if (client.isOpen) client.destroy();
}

/** Waits for `promise` or `ms`, whichever is first, leaving no timer behind. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
