import type pg from 'pg';
import { loadPg } from '../libraries.js';
import { createSchema } from './schema.js';

export interface PostgresPoolOptions {
  /** `postgres://user:pass@host:port/db`; `?schema=name` puts every table in that schema. */
  url: string;
  /** Schema for Portico's tables (created if missing). Default: the URL's `?schema=`, else `public`. */
  schema?: string;
  /** Most connections this process opens for data. Default 10; lock and claim statements have a pool of their own, half as big (at most 4). */
  maxConnections?: number;
  /** Longest wait to open a connection or take one from a busy pool. Default 5 s. */
  connectTimeoutMs?: number;
  /**
   * Longest run of one statement, on the server (`statement_timeout`) and in the client: past it
   * the statement is cancelled and the caller gets an error. Default 10 s; the gateway's store
   * guard answers a request sooner (`storeTimeoutMs`).
   */
  statementTimeoutMs?: number;
  /** Connection errors seen in the background (an idle connection dropped); for logging. */
  onError?: (error: unknown) => void;
}

/** The server's clock in epoch ms, fixed for one statement: every instance shares it. */
export const NOW_MS = `(floor(extract(epoch from statement_timestamp()) * 1000)::bigint)`;

/** A plain identifier only: it is put into `search_path` and DDL, never quoted by a driver. */
const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params?: unknown[],
) => Promise<pg.QueryResult<R>>;

export interface Db {
  /** One statement, after the schema exists. */
  query: Query;
  /**
   * The same for writes whose loss in a database crash is harmless (lock leases, job claims):
   * committed without waiting for the WAL flush (`synchronous_commit = off`), which costs a
   * lock cycle ~2–3 ms instead of ~15 ms here. A crash of the server can forget the last
   * fraction of a second of them (a lease then looks free; a claimed job runs again), never
   * leave them half written. Data, counters and job outcomes go through `query`.
   */
  quick: Query;
  readonly schema: string;
  /**
   * A connection of its own, outside the pools and not yet connected, whose statements have
   * `statementTimeoutMs` as their deadline: for background upkeep that must neither hold a pooled
   * connection nor keep `end` waiting (its owner ends it, or cuts it off).
   */
  client(statementTimeoutMs: number): pg.Client;
  end(): Promise<void>;
}

/** Portico's own URL parameters: read by the storage, never handed to the driver (it would take them as server settings). */
const ownParameters = ['schema', 'maintain_statistics'];

/** Splits Portico's own parameters (`schema`, `maintain_statistics`) off the URL. */
function splitOwnParameters(url: string): { url: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  for (const name of ownParameters) parsed.searchParams.delete(name);
  return { url: parsed.toString(), schema };
}

/**
 * A bounded pool whose every statement has a deadline, and whose tables are created on first
 * use (idempotent; under an advisory lock, so instances starting together do not race). A failed
 * creation (database down at start) is tried again by the next statement.
 */
export function createDb(options: PostgresPoolOptions): Db {
  const split = splitOwnParameters(options.url);
  const schema = options.schema ?? split.schema ?? 'public';
  if (!schemaPattern.test(schema))
    throw new Error(`PostgreSQL schema "${schema}": use lower-case letters, digits and _`);
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const max = options.maxConnections ?? 10;
  const connection = (deadlineMs: number, settings = ''): pg.ClientConfig => ({
    connectionString: split.url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: deadlineMs,
    // The client's own bound too: a server that stopped answering cannot cancel anything.
    query_timeout: deadlineMs + 1_000,
    idle_in_transaction_session_timeout: deadlineMs,
    options: `-c search_path=${schema}${settings}`,
    application_name: 'portico',
  });
  const config = (connections: number, settings: string): pg.PoolConfig => ({
    ...connection(statementTimeoutMs, settings),
    max: connections,
    idleTimeoutMillis: 30_000,
  });
  const { Pool, Client } = loadPg();
  const pool = new Pool(config(max, ''));
  const quickPool = new Pool(config(Math.max(1, Math.min(4, Math.ceil(max / 2))), ' -c synchronous_commit=off'));
  // Without a listener an idle connection's error would crash the process.
  for (const p of [pool, quickPool]) p.on('error', options.onError ?? (() => {}));
  let ready: Promise<void> | undefined;
  const prepared = () => {
    ready ??= createSchema(pool, schema).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  return {
    schema,
    async query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]) {
      await prepared();
      return pool.query<R>(sql, params);
    },
    async quick<R extends pg.QueryResultRow>(sql: string, params?: unknown[]) {
      await prepared();
      return quickPool.query<R>(sql, params);
    },
    client: (deadlineMs) => new Client(connection(deadlineMs)),
    end: async () => {
      await Promise.all([pool.end(), quickPool.end()]);
    },
  };
}
