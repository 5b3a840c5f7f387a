import type Keyv from 'keyv';
import type { OrderedIndex } from './ordered-index.js';
import type { PageReader } from './page-reader.js';
import { waitForLock, type Coordinator, type Lease } from '../coordination/index.js';
import { GatewayError } from '../errors.js';
import type { Storage } from './storage.js';

export interface StoreGuardOptions {
  /** Longest wait for one store command. */
  timeoutMs: number;
  /** Told what failed and why (for the log); the caller only ever sees `store_unavailable`. */
  onFailure?: (operation: string, cause: unknown) => void;
}

/** Default longest wait for one store command: a request that needs the store answers 503 well within 2 s. */
export const defaultStoreTimeoutMs = 1_500;

/**
 * Once a command has failed, later ones get this much shorter deadline until one succeeds: an
 * outage costs the first request the full wait, the next ones a short probe.
 */
const probeTimeoutMs = 250;

/** Longest wait for a page reader's answer, its thread's start included (the reader's own bounds are shorter). */
const pageBackstopMs = 15_000;

/** Keyv methods that reach the store; everything else (events, options, `store`) passes through. */
const storeMethods = new Set([
  'get',
  'getMany',
  'getRaw',
  'getManyRaw',
  'set',
  'setMany',
  'delete',
  'deleteMany',
  'clear',
  'has',
  'hasMany',
]);

/** Ordered-index methods (listings and the lists a write updates). */
const indexMethods = new Set(['addMany', 'remove', 'page', 'count']);

/** Work-queue methods a request waits on. */
const queueMethods = new Set(['enqueue']);

/** True for the error the guard answers with (a 503 with `Retry-After` at the edge). */
export const isStoreUnavailable = (error: unknown): boolean =>
  GatewayError.is(error) && error.code === 'store_unavailable';

/**
 * Bounds every store command in time and turns every store failure into one answer,
 * `503 store_unavailable` (sent with `Retry-After`): a Redis that went away or a SQLite file
 * another process holds locked costs the request that needed it a bounded wait, never a hang
 * and never a `500` with a driver's message. Wraps any `Storage`, whatever the back end; the
 * back ends add their own, earlier limits (the Redis command timeout, the SQLite busy wait).
 * A command that times out may still complete later: nothing was acknowledged to anyone.
 */
export function guardStorage(storage: Storage, options: StoreGuardOptions): Storage {
  const health: Health = { failing: false };
  const run = createDeadline(options, health);
  const keyvs = new Map<string, Keyv>();
  const indexes = new Map<string, OrderedIndex>();
  // Its own deadline state: locks may live elsewhere (in memory beside SQLite) and answer while the store does not.
  const coordinator = guardCoordinator(storage.coordinator, createDeadline(options));
  // Enqueueing is what a request waits for (an action accepted, a sync triggered, a webhook
  // sent): it gets the store's deadline too. Workers and schedules run in the background.
  const enqueueRun = createDeadline(options);
  return {
    kind: storage.kind,
    shared: storage.shared,
    commitsTogether: storage.commitsTogether,
    keyv<T = unknown>(namespace: string): Keyv<T> {
      let guarded = keyvs.get(namespace);
      if (!guarded) {
        guarded = guardMethods(storage.keyv(namespace), storeMethods, namespace, run);
        keyvs.set(namespace, guarded);
      }
      return guarded as Keyv<T>;
    },
    index(namespace: string): OrderedIndex {
      let guarded = indexes.get(namespace);
      if (!guarded) {
        guarded = guardMethods(storage.index(namespace), indexMethods, `index ${namespace}`, run);
        indexes.set(namespace, guarded);
      }
      return guarded;
    },
    writeListed: storage.writeListed && guardWriteListed(storage.writeListed, run),
    // A page reader bounds its own reads, and its first waits for its thread to start: the
    // guard's bound here is a backstop, and what fails still reaches the caller as a 503. Pages
    // are read from the same store: a failed one makes the next commands probes, and the reverse.
    pages:
      storage.pages && guardPages(storage.pages, createDeadline({ ...options, timeoutMs: pageBackstopMs }, health)),
    coordinator,
    queue: (name, queueOptions) =>
      guardMethods(storage.queue(name, queueOptions), queueMethods, `queue ${name}`, enqueueRun),
    close: () => storage.close(),
  };
}

type Run = <T>(operation: string, work: () => Promise<T>) => Promise<T>;

/** Whether the store's last command failed: the deadlines that share it then give the next ones a short probe. */
type Health = { failing: boolean };

/** Runs one store command under the deadline; any failure becomes `store_unavailable`. */
function createDeadline(options: StoreGuardOptions, health: Health = { failing: false }): Run {
  const unavailable = (operation: string, cause: unknown) => {
    health.failing = true;
    options.onFailure?.(operation, cause);
    return new GatewayError('store_unavailable', 'The store is not answering; retry shortly.');
  };
  return <T>(operation: string, work: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let settled = false;
      const timeoutMs = health.failing ? Math.min(probeTimeoutMs, options.timeoutMs) : options.timeoutMs;
      const timer = setTimeout(() => {
        settled = true;
        reject(unavailable(operation, new Error(`no answer within ${timeoutMs} ms`)));
      }, timeoutMs);
      let pending: Promise<T>;
      try {
        pending = work();
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => {
          clearTimeout(timer);
          health.failing = false;
          if (!settled) resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (settled) return;
          // A GatewayError from inside (a lock wait running out, say) is already the caller's answer.
          reject(GatewayError.is(error) ? error : unavailable(operation, error));
        },
      );
    });
}

/** The same object, the named methods bounded (a Proxy: its type, prototype and other members stay as they are). */
function guardMethods<O extends object>(target: O, methods: ReadonlySet<string>, label: string, run: Run): O {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function' || !methods.has(property as string)) return value;
      let method = wrapped.get(property);
      if (!method) {
        const original = value as (...args: unknown[]) => Promise<unknown>;
        const operation = `${label}.${String(property)}`;
        method = (...args: unknown[]) => run(operation, () => original.apply(object, args));
        wrapped.set(property, method);
      }
      return method;
    },
  });
}

function guardWriteListed(write: NonNullable<Storage['writeListed']>, run: Run): Storage['writeListed'] {
  return (writes) => run(`listed ${writes[0]?.namespace ?? ''}.write`, () => write(writes));
}

function guardPages(pages: PageReader, run: Run): PageReader {
  return { read: (request) => run(`pages ${request.namespace}`, () => pages.read(request)) };
}

function guardCoordinator(coordinator: Coordinator, run: Run): Coordinator {
  const tryLock = async (key: string, ttlMs: number): Promise<Lease | null> => {
    const lease = await run('lock', () => coordinator.tryLock(key, ttlMs));
    // A release the store does not take is not the caller's failure: the lock expires on its own (ttl).
    return (
      lease && {
        release: () => run('unlock', () => lease.release()).catch(() => undefined),
        renew: (renewMs) => run('renew lock', () => lease.renew(renewMs)),
      }
    );
  };
  return {
    tryLock,
    // The wait for a lock someone holds has its own bound (`waitMs`); each attempt has the store's.
    withLock: (key, fn, lockOptions) => waitForLock(tryLock, key, fn, lockOptions, coordinator.ordersReads),
    increment: (key, by) => run('increment', () => coordinator.increment(key, by)),
    close: () => coordinator.close(),
    // The attempt is begun when tryLock is called (`run` starts its work at once): the order holds.
    ordersReads: coordinator.ordersReads === true,
  };
}

/** A failure reporter for `onFailure` that writes one warning at most every `everyMs`, counting the rest. */
export function logStoreFailures(warn: (message: string, fields: Record<string, unknown>) => void, everyMs = 5_000) {
  let last = 0;
  let suppressed = 0;
  return (operation: string, cause: unknown): void => {
    const now = Date.now();
    if (now - last < everyMs) {
      suppressed++;
      return;
    }
    warn('store unavailable', {
      operation,
      error: cause instanceof Error ? cause.message || cause.name : String(cause),
      suppressed,
    });
    last = now;
    suppressed = 0;
  };
}
