import type { Command, Redis, RedisOptions } from 'ioredis';
import { loadIoredis } from '../libraries.js';

/** Reconnect delays while Redis is away: short, so the work resumes soon after Redis returns. */
const reconnectDelayMs = (attempt: number) => Math.min(100 * 2 ** attempt, 1_000);

/** Longest wait for one connection attempt (a host that drops packets must not hold a reconnect). */
const connectTimeoutMs = 1_500;

/** Longest `end()` waits for the clients caught between two reconnect attempts to settle. */
const settleMs = reconnectDelayMs(Infinity) + connectTimeoutMs + 500;

/** Client states in which a command can no longer reach Redis. */
const unreachable = new Set(['reconnecting', 'close', 'end']);

/**
 * What a command sent on a closing queue without a connection fails with. Deliberately not
 * ioredis' "Connection is closed.": BullMQ retries a job's bookkeeping on that error forever, and
 * while its worker is closing it retries without a pause (`retryIfFailed`); a command on a client
 * that has ended fails at once, so that became a promise loop that never let the event loop turn.
 * On any other error BullMQ gives up; the job, still locked, is handed out again once its lock lapses.
 */
export class QueueClosedError extends Error {
  constructor() {
    super('queue: closed while Redis is away');
    this.name = 'QueueClosedError';
  }
}

export interface QueueConnections {
  producer(): Redis;
  worker(): Redis;
  ready(client: Redis, ms: number): Promise<void>;
  end(closeBullmq: () => Promise<unknown>, graceMs: number): Promise<void>;
}

/**
 * The Redis clients a BullMQ queue runs on, owned here rather than by BullMQ so that closing
 * after an outage is bounded and leaves nothing behind:
 * - once `end()` starts, no client reconnects (their retry strategy answers "stop");
 * - ioredis' `disconnect()` on a client waiting to reconnect never emits `end`, and BullMQ's
 *   worker waits for that event when it closes (ioredis issue 1247), so `end()` first lets each
 *   such client make its last attempt, then hands over to BullMQ, then disconnects whatever is left;
 * - once `end()` starts, a command that cannot reach Redis fails with `QueueClosedError`, which
 *   BullMQ does not retry (a job that failed during the outage spun its close forever: issue 16).
 */
export function createQueueConnections(url: string): QueueConnections {
  let ending = false;
  const clients = new Set<Redis>();
  const retryStrategy = (attempt: number) => (ending ? null : reconnectDelayMs(attempt));
  const base: RedisOptions = { retryStrategy, connectTimeout: connectTimeoutMs };
  const own = <C extends Redis>(client: C): C => {
    clients.add(client);
    // BullMQ reports errors while it listens; after its close, a last failed attempt must not print.
    client.on('error', () => {});
    return client;
  };
  /** A client whose copies (BullMQ's blocking connection is one) are owned too. */
  class Owned extends loadIoredis().Redis {
    override duplicate(override?: Partial<RedisOptions>): Redis {
      return own(new Owned({ ...this.options, ...override }));
    }

    /** Once `end()` has started, a command that cannot reach Redis fails with QueueClosedError. */
    override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
      if (ending && unreachable.has(this.status)) {
        command.reject(new QueueClosedError());
        return command.promise;
      }
      return super.sendCommand(command, stream);
    }
  }

  return {
    /**
     * For the producer: no command waits while Redis is away (none is queued, none in flight at
     * a cut is re-sent), so an enqueue that failed, and was answered 503, never lands afterwards.
     */
    producer: () =>
      own(
        new Owned(url, {
          ...base,
          maxRetriesPerRequest: 0,
          enableOfflineQueue: false,
          autoResendUnfulfilledCommands: false,
        }),
      ),
    /** For the worker: its commands wait for Redis to return (BullMQ requires it of blocking reads). */
    worker: () => own(new Owned(url, { ...base, maxRetriesPerRequest: null })),
    /** Resolves once `client` is connected, or rejects after `ms` (nothing is sent meanwhile). */
    ready(client: Redis, ms: number): Promise<void> {
      if (client.status === 'ready') return Promise.resolve();
      return new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          client.off('ready', done);
          resolve();
        };
        const timer = setTimeout(() => {
          client.off('ready', done);
          reject(new Error('queue: Redis is not connected'));
        }, ms);
        client.on('ready', done);
      });
    },
    /** Stops reconnects, runs BullMQ's close (bounded by `graceMs`), then cuts every client left. */
    async end(closeBullmq: () => Promise<unknown>, graceMs: number): Promise<void> {
      ending = true;
      const started = Date.now();
      while ([...clients].some((client) => client.status === 'reconnecting') && Date.now() - started < settleMs) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await settleWithin(closeBullmq(), graceMs);
      // Only the ones still open: ioredis arms a 2 s timer for each disconnect, ended or not.
      for (const client of clients) if (client.status !== 'end') client.disconnect();
      clients.clear();
    },
  };
}

/** Waits for `promise` or `ms`, whichever is first, leaving no timer behind (failures are ignored). */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
