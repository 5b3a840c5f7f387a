import type { createClient } from '@keyv/redis';
import { loadKeyvRedis } from './libraries.js';

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
 * Longest a command queued while Redis was away may still wait to be written once the connection
 * is ready: a backstop only, for the connection leaving again re-arms them with the offline bound,
 * and the gateway's store deadline answers its caller long before (lib/storage/guard.ts).
 */
const writingBoundMs = 60_000;

/**
 * Bounds the offline queue's wait only while there is one. node-redis's own command timeout arms
 * an `AbortSignal.timeout` for every command, connected or not (6–9 µs each on Node 20, and 1–5 µs
 * more when its timer fires a second later on Node 22 and 24: bench/README.md, session 12), and
 * disarms it once the command is written, which on a ready connection is the same turn. Here the
 * bound is set when the connection is known to be away — an error (a refused or timed-out connect
 * too), an end, a reconnect attempt — and the commands already waiting get `waitMs` from then, as
 * does every command queued until the connection is ready again. While the first connection is
 * being made nothing is armed: a command queued then waits for its outcome (a refusal is an error
 * at once; a host that never answers, node-redis's 5 s connect timeout), not for a clock that also
 * runs while the process is busy queueing a large batch. The bound is for waiting on a connection,
 * not on the socket: once it is ready, the commands still queued go out behind each other with the
 * `writingBoundMs` backstop. A written command is bounded as before, by the gateway's store
 * deadline (lib/storage/guard.ts).
 */
function boundOfflineQueue(client: RedisClient, waitMs: number): void {
  // node-redis's hook for a server's maintenance notices (marked internal): from the call on,
  // every command waiting to be written, and every one queued after, fails once it has waited
  // `relaxedCommandTimeout` ms; without it, new commands wait unbounded again.
  const away = () => client._maintenanceUpdate({ relaxedCommandTimeout: waitMs });
  client.on('error', away);
  client.on('end', away);
  client.on('reconnecting', away);
  client.on('ready', () => {
    // The commands queued while it was away are written now, behind each other: a batch of
    // thousands takes the socket's drains to go out, which on a loaded machine is more than
    // `waitMs` after the first was queued. They are re-armed with `writingBoundMs` from now (the
    // call skips a value equal to the current one), then the bound is lifted for new commands.
    client._maintenanceUpdate({ relaxedCommandTimeout: Math.max(writingBoundMs, waitMs + 1) });
    client._maintenanceUpdate({});
  });
}

/**
 * A node-redis client as the storage uses one (docs: "When the store fails"): it reconnects by
 * itself, and its offline queue is bounded in length and in time, so a command fails rather than
 * waits for a Redis that is away. The storage's client and its page reader's are made here.
 */
export function createRedisClient(options: RedisClientOptions): RedisClient {
  const { createClient, defaultReconnectStrategy } = loadKeyvRedis();
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

/** Runs a script by its digest, sending it whole only when the server does not know it yet (after a restart, say). */
export async function evalCached(
  client: RedisClient,
  script: string,
  sha: string,
  options: { keys: string[]; arguments: string[] },
) {
  try {
    return await client.evalSha(sha, options);
  } catch (error) {
    if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
    return client.eval(script, options);
  }
}
