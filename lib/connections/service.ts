import { randomUUID } from 'node:crypto';
import type { Cipher } from '../crypto/index.js';
import { fail } from '../errors.js';
import type { EventBus } from '../events/index.js';
import type { IntegrationService } from '../integrations/index.js';
import type { Catalog } from '../providers/index.js';
import { createReadCache, type IndexPosition, type Storage } from '../storage/index.js';
import type { AuthProblem, Connection, EndUser, StoredConnection } from './connection.js';
import type { ConnectionCredentials } from './credentials.js';
import { idSearchKeys } from './search.js';
import { listConnections, type ConnectionFilter, type ConnectionPage, type Stale } from './listing.js';
import { connectionsCollection, createConnectionStore, storedId } from './store.js';

export interface ConnectionInput {
  provider_config_key: string;
  connection_id?: string | undefined;
  credentials: ConnectionCredentials;
  end_user?: EndUser | undefined;
  metadata?: Record<string, unknown> | undefined;
  connection_config?: Record<string, string> | undefined;
}

export type { ConnectionFilter, ConnectionPage } from './listing.js';

export interface ConnectionService {
  /** Creates, or overrides an existing connection with the same id (keeping its created_at). */
  upsert(
    env: string,
    input: ConnectionInput,
    operation: 'import' | 'oauth' | 'connect',
  ): Promise<{ connection: Connection; created: boolean }>;
  get(env: string, providerConfigKey: string, connectionId: string): Promise<Connection | undefined>;
  /** Cached lookup for the hot path; 404 `unknown_connection` when missing. */
  require(env: string, providerConfigKey: string, connectionId: string): Promise<Connection>;
  /** The in-process cached connection, or undefined (then `require` reads the store). No await on the hot path. */
  cached(env: string, providerConfigKey: string, connectionId: string): Connection | undefined;
  /**
   * Reads the store, not the cache, and puts what it read in the cache. For code holding a lock
   * that must see another process's latest write (token refresh).
   */
  reload(env: string, providerConfigKey: string, connectionId: string): Promise<Connection | undefined>;
  /** One page, oldest first, from the environment's ordered index; credentials stay sealed. */
  list(
    env: string,
    filter: ConnectionFilter,
    page: { limit: number; after?: IndexPosition | undefined },
  ): Promise<ConnectionPage>;
  /** Every connection id of an integration, a page at a time. */
  idsOf(env: string, providerConfigKey: string): AsyncIterable<string>;
  /**
   * Moves connections stored by an older layout into the index, and adds the environments'
   * connections to lists they were written without (search, end user within an integration).
   * Run at start; a store already up to date costs a read per environment.
   */
  upgrade(environments: readonly string[]): Promise<number>;
  patchEndUser(env: string, providerConfigKey: string, connectionId: string, endUser: EndUser): Promise<Connection>;
  setMetadata(
    env: string,
    providerConfigKey: string,
    connectionIds: readonly string[],
    metadata: Record<string, unknown>,
    mode: 'replace' | 'merge',
  ): Promise<Connection[]>;
  /** Stores new credentials sealed (after a refresh or mint), clearing any auth problem. */
  updateCredentials(
    env: string,
    providerConfigKey: string,
    connectionId: string,
    credentials: ConnectionCredentials,
  ): Promise<Connection>;
  /** Marks the connection unusable until new credentials arrive; it is not deleted. */
  markAuthProblem(
    env: string,
    providerConfigKey: string,
    connectionId: string,
    problem: Omit<AuthProblem, 'at'>,
  ): Promise<void>;
  delete(env: string, providerConfigKey: string, connectionId: string): Promise<boolean>;
  deleteAllOf(env: string, providerConfigKey: string): Promise<number>;
}

export interface ConnectionServiceDeps {
  storage: Storage;
  cipher: Cipher;
  catalog: Catalog;
  integrations: IntegrationService;
  events: EventBus;
  cacheTtlMs: number;
}

const sep = '\u001e';

/** Where connections keep a sealed value, for key rotation (lib/keys): collection, entry lock, field. */
export const sealedConnections = {
  collection: connectionsCollection,
  lock: (env: string, id: string) => `connection:${env}:${id}`,
  field: 'credentials',
} as const;

export function createConnectionService(deps: ConnectionServiceDeps): ConnectionService {
  const { cipher, storage, events } = deps;
  const store = createConnectionStore(storage, cipher);
  const cache = createReadCache<Connection>({ ttlMs: storage.shared ? deps.cacheTtlMs : 3_600_000 });
  const cacheKey = (env: string, pck: string, cid: string) => `${env}${sep}${storedId(pck, cid)}`;

  const open = (env: string, { order: _order, auth_mode: _mode, ...s }: StoredConnection): Connection => ({
    ...s,
    environment: env,
    credentials: cipher.open<ConnectionCredentials>(s.credentials),
  });

  const notFound = (pck: string, cid: string): never =>
    fail('unknown_connection', `No connection "${cid}" under integration "${pck}".`);

  /**
   * A connection's lock: released after the write is answered, and the connection read right
   * behind the lock's attempt (`read`) — two store round trips less a write on Redis.
   */
  const underLock = <T>(env: string, id: string, fn: (current: StoredConnection | undefined) => Promise<T>) =>
    storage.coordinator.withLock(sealedConnections.lock(env, id), fn, {
      releaseInBackground: true,
      read: () => store.get(env, id),
    });

  /** Read-modify-write of one connection under its lock; the cache is dropped after the write. */
  const change = (env: string, pck: string, cid: string, edit: (s: StoredConnection) => StoredConnection) =>
    underLock(env, storedId(pck, cid), async (current) => {
      if (!current) notFound(pck, cid);
      const next = await store.put(
        env,
        storedId(pck, cid),
        { ...edit(current as StoredConnection), updated_at: new Date().toISOString() },
        current,
      );
      cache.delete(cacheKey(env, pck, cid));
      return open(env, next);
    });

  /**
   * Takes out entries a read found stale, each connection under its lock (then no write of it is
   * under way, and its value says which entries it is listed by). A connection being written is
   * left for a later read; a failure leaves them too: the page was read, and the next read skips
   * them again.
   */
  const dropStale = (env: string, stale: readonly Stale[]) =>
    Promise.all(
      stale.map(async ({ id, entries }) => {
        try {
          const lease = await storage.coordinator.tryLock(sealedConnections.lock(env, id), 10_000);
          if (!lease) return;
          try {
            await store.dropStale(env, id, entries);
          } finally {
            await lease.release();
          }
        } catch {
          // Best effort, as above.
        }
      }),
    );

  const service: ConnectionService = {
    async upsert(env, input, operation) {
      const integration = await deps.integrations.require(env, input.provider_config_key);
      const mode = integration.auth_mode;
      if (input.credentials.type !== mode) {
        fail(
          'invalid_credentials',
          `credentials.type must be ${mode} for integration "${integration.unique_key}" (provider ${integration.provider}).`,
          { field: 'credentials.type' },
        );
      }
      const cid = input.connection_id ?? randomUUID();
      const pck = input.provider_config_key;
      const result = await underLock(env, storedId(pck, cid), async (existing) => {
        const now = new Date().toISOString();
        const stored: StoredConnection = {
          connection_id: cid,
          provider_config_key: pck,
          provider: integration.provider,
          credentials: cipher.seal(input.credentials),
          auth_mode: input.credentials.type,
          connection_config: input.connection_config ?? existing?.connection_config ?? {},
          metadata: input.metadata ?? existing?.metadata ?? {},
          end_user: input.end_user ?? existing?.end_user ?? null,
          auth_problem: null,
          created_at: existing?.created_at ?? now,
          updated_at: now,
        };
        await store.put(env, storedId(pck, cid), stored, existing);
        cache.delete(cacheKey(env, pck, cid));
        // The credentials just sealed are at hand: no need to open them again.
        const { order: _order, auth_mode: _mode, ...rest } = stored;
        return { connection: { ...rest, environment: env, credentials: input.credentials }, created: !existing };
      });
      await events.publish({
        type: result.created ? 'connection.created' : 'connection.overridden',
        environment: env,
        provider_config_key: pck,
        connection_id: cid,
        provider: integration.provider,
        end_user: result.connection.end_user,
        operation,
      });
      return result;
    },
    async get(env, pck, cid) {
      return cache.load(cacheKey(env, pck, cid), async () => {
        const stored = await store.get(env, storedId(pck, cid));
        return stored ? open(env, stored) : undefined;
      });
    },
    async require(env, pck, cid) {
      return (await service.get(env, pck, cid)) ?? notFound(pck, cid);
    },
    cached(env, pck, cid) {
      return cache.get(cacheKey(env, pck, cid));
    },
    async reload(env, pck, cid) {
      const stored = await store.get(env, storedId(pck, cid));
      // Dropping first also stops a load already under way from caching an older value.
      cache.delete(cacheKey(env, pck, cid));
      if (!stored) return undefined;
      const connection = open(env, stored);
      cache.set(cacheKey(env, pck, cid), connection);
      return connection;
    },
    async list(env, filter, page) {
      const { stale, ...listed } = await listConnections(store, env, filter, page.limit, page.after);
      if (stale.length > 0) await dropStale(env, stale);
      return listed;
    },
    async *idsOf(env, pck) {
      let after: IndexPosition | undefined;
      for (;;) {
        const positions = await store.page(env, `integration:${pck}`, 500, after);
        for (const p of positions) yield p.id.slice(pck.length + 1);
        after = positions.at(-1);
        if (positions.length < 500) return;
      }
    },
    async upgrade(environments) {
      let moved = await store.upgrade();
      for (const env of environments) moved += await store.relist(env);
      return moved;
    },
    patchEndUser(env, pck, cid, endUser) {
      // Each connection keeps its own copy (spec 2.4): no other connection is touched.
      return change(env, pck, cid, (s) => ({ ...s, end_user: { ...endUser } }));
    },
    async setMetadata(env, pck, ids, metadata, mode) {
      for (const cid of ids) if (!(await store.get(env, storedId(pck, cid)))) notFound(pck, cid);
      const out: Connection[] = [];
      for (const cid of ids) {
        out.push(
          await change(env, pck, cid, (s) => ({
            ...s,
            metadata: mode === 'replace' ? { ...metadata } : { ...s.metadata, ...metadata },
          })),
        );
      }
      return out;
    },
    async updateCredentials(env, pck, cid, credentials) {
      let recovered = false;
      const updated = await change(env, pck, cid, (s) => {
        recovered = s.auth_problem !== null;
        return { ...s, credentials: cipher.seal(credentials), auth_problem: null };
      });
      if (recovered) {
        await events.publish({
          type: 'connection.auth_recovered',
          environment: env,
          provider_config_key: pck,
          connection_id: cid,
          provider: updated.provider,
        });
      }
      return updated;
    },
    async markAuthProblem(env, pck, cid, problem) {
      const updated = await change(env, pck, cid, (s) => ({
        ...s,
        auth_problem: { ...problem, at: new Date().toISOString() },
      }));
      await events.publish({
        type: 'connection.auth_failed',
        environment: env,
        provider_config_key: pck,
        connection_id: cid,
        provider: updated.provider,
        code: problem.code,
        message: problem.message,
      });
    },
    async delete(env, pck, cid) {
      const stored = await store.get(env, storedId(pck, cid));
      // Without a value (a write cut short), still leave the integration's list (deleteAllOf reads
      // it) and the search entries of the id's words; those of the end user's email and name, and
      // the end user's lists, go when a read finds them (dropStale).
      const existed = await store.delete(env, storedId(pck, cid), stored, [`integration:${pck}`], idSearchKeys(cid));
      cache.delete(cacheKey(env, pck, cid));
      if (existed && stored) {
        await events.publish({
          type: 'connection.deleted',
          environment: env,
          provider_config_key: pck,
          connection_id: cid,
          provider: stored.provider,
        });
      }
      return existed;
    },
    async deleteAllOf(env, pck) {
      let removed = 0;
      // Each deletion takes the connection out of the list the ids come from: re-read from the start.
      for (;;) {
        const ids: string[] = [];
        for await (const cid of service.idsOf(env, pck)) if (ids.push(cid) === 500) break;
        for (const cid of ids) if (await service.delete(env, pck, cid)) removed++;
        if (ids.length < 500) return removed;
      }
    },
  };
  return service;
}
