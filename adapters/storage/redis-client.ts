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
 * Bounds the offline queue's wait only while there is one. node-redis's own command timeout arms
 * an `AbortSignal.timeout` for every command, connected or not (6–9 µs each on Node 20, and 1–5 µs
 * more when its timer fires a second later on Node 22 and 24: bench/README.md, session 12), and
 * disarms it once the command is written, which on a ready connection is the same turn. Here the
 * bound is set when the connection goes (an error, an end, a reconnect attempt) and before the
 * first one is up: the commands already waiting get `waitMs` from then, and so does every command
 * queued until the connection is ready again. A written command is bounded as before, by the
 * gateway's store deadline (lib/storage/guard.ts).
 */
function boundOfflineQueue(client: RedisClient, waitMs: number): void {
  // node-redis's hook for a server's maintenance notices (marked internal): from the call on,
  // every command waiting to be written, and every one queued after, fails once it has waited
  // `relaxedCommandTimeout` ms; without it, new commands wait unbounded again.
  const away = () => client._maintenanceUpdate({ relaxedCommandTimeout: waitMs });
  away();
  client.on('error', away);
  client.on('end', away);
  client.on('reconnecting', away);
  client.on('ready', () => client._maintenanceUpdate({}));
}

/**
 * A node-redis client as the storage uses one (docs: "When the store fails"): it reconnects by
 * itself, and its offline queue is bounded in length and in time, so a command fails rather than
 * waits for a Redis that is away. The storage's client and its page reader's are made here.
 */
export function createRedisClient(options: RedisClientOptions): RedisClient {
  const waitMs = options.commandTimeoutMs ?? 1_000;
  const settings = {
    url: options.url,
    socket: { reconnectStrategy: defaultReconnectStrategy },
    commandsQueueMaxLength: options.maxQueuedCommands ?? 100_000,
  };
  let client: RedisClient = createClient(settings);
  if (typeof client._maintenanceUpdate === 'function') boundOfflineQueue(client, waitMs);
  // A node-redis without the hook: its own timeout on every command, as before.
  else client = createClient({ ...settings, commandOptions: { timeout: waitMs } });
  // Without an 'error' listener an EventEmitter throws, which would crash the process on a blip.
  client.on('error', options.onError);
  return client;
}
