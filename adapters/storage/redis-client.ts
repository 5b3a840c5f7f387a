import { createClient, defaultReconnectStrategy } from '@keyv/redis';

/** The node-redis client type, taken from the factory so it matches what `@keyv/redis` builds. */
export type RedisClient = ReturnType<typeof createClient>;

export interface RedisClientOptions {
  url: string;
  /** Longest a command waits to be sent while Redis is away (in the client's offline queue). Default 1 s. */
  commandTimeoutMs?: number | undefined;
  /** Most commands waiting in the client's queue; beyond, commands fail at once. Default 100 000. */
  maxQueuedCommands?: number | undefined;
  /** Connection errors: the client reconnects by itself, so these are for logging. */
  onError: (error: unknown) => void;
}

/**
 * A node-redis client as the storage uses one (docs: "When the store fails"): it reconnects by
 * itself, and its offline queue is bounded in length and in time, so a command fails rather than
 * waits for a Redis that is away. The storage's client and its page reader's are made here.
 */
export function createRedisClient(options: RedisClientOptions): RedisClient {
  const client: RedisClient = createClient({
    url: options.url,
    socket: { reconnectStrategy: defaultReconnectStrategy },
    commandOptions: { timeout: options.commandTimeoutMs ?? 1_000 },
    commandsQueueMaxLength: options.maxQueuedCommands ?? 100_000,
  });
  // Without an 'error' listener an EventEmitter throws, which would crash the process on a blip.
  client.on('error', options.onError);
  return client;
}
