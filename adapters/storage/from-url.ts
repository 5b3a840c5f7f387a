import type { Storage } from '../../lib/storage/index.js';
import { createMemoryStorage } from './memory.js';
import { createPostgresStorage, statisticsSwitch } from './postgres/index.js';
import { createRedisStorage } from './redis.js';
import { createSqliteStorage } from './sqlite.js';

export type StorageSpec =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string }
  | { kind: 'redis'; url: string }
  | { kind: 'postgres'; url: string };

const ACCEPTED =
  'memory://, sqlite://<path> (e.g. sqlite://./data/portico.db, sqlite:///abs/path.db), ' +
  'redis://[user:pass@]host[:port][/db] or rediss://…, ' +
  'postgres://[user:pass@]host[:port]/database[?schema=name][&maintain_statistics=on|off] (or postgresql://…)';

/** Where a back end reports what happens in the background (PostgreSQL's only, for now: idle connection errors, its statistics upkeep). */
export interface StorageLog {
  onError?: (error: unknown) => void;
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
  /**
   * The store is opened for one command and closed (the CLI): no background upkeep, such as
   * PostgreSQL's statistics (which would only warn, then be cut off at close).
   */
  shortLived?: boolean;
}

/** Parses without connecting or touching the disk, so configuration errors surface at start-up. */
export function parseStorageUrl(url: string): StorageSpec {
  const trimmed = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'memory':
      if (!/^memory:(\/\/)?$/i.test(trimmed)) fail(url, 'memory storage takes no host or path');
      return { kind: 'memory' };
    case 'sqlite': {
      // Not parsed with `new URL`: a file path is not a host, and URL parsing would mangle
      // `./relative` paths. Whatever follows `sqlite://` is the path, as written.
      if (!/^sqlite:\/\//i.test(trimmed)) fail(url, 'expected sqlite://<path>');
      const path = trimmed.slice('sqlite://'.length);
      if (path === '' || path === '/') fail(url, 'the database file path is missing');
      return { kind: 'sqlite', path };
    }
    case 'redis':
    case 'rediss': {
      let parsed: URL;
      try {
        parsed = new URL(trimmed);
      } catch {
        fail(url, 'not a valid URL');
      }
      if (!parsed.hostname) fail(url, 'the Redis host is missing');
      return { kind: 'redis', url: trimmed };
    }
    case 'postgres':
    case 'postgresql': {
      let parsed: URL;
      try {
        parsed = new URL(trimmed);
      } catch {
        fail(url, 'not a valid URL');
      }
      if (!parsed.hostname) fail(url, 'the PostgreSQL host is missing');
      const schema = parsed.searchParams.get('schema');
      if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
        fail(url, 'schema= takes lower-case letters, digits and _');
      try {
        statisticsSwitch(trimmed);
      } catch (error) {
        fail(url, (error as Error).message);
      }
      return { kind: 'postgres', url: trimmed };
    }
    default:
      fail(url, scheme ? `unknown scheme "${scheme}:"` : 'no scheme');
  }
}

/**
 * `SERVICE_STORE_URL=…`-style configuration: one string picks and configures the back end. On
 * PostgreSQL the URL carries Portico's own options, `schema` and `maintain_statistics`
 * (`createPostgresStorage`'s `maintainStatistics`); everything else goes to the driver.
 */
export function storageFromUrl(url: string, options: StorageLog = {}): Storage {
  const { shortLived, ...log } = options;
  const spec = parseStorageUrl(url);
  switch (spec.kind) {
    case 'memory':
      return createMemoryStorage();
    case 'sqlite':
      return createSqliteStorage({ path: spec.path });
    case 'redis':
      return createRedisStorage({ url: spec.url });
    case 'postgres':
      return createPostgresStorage({ url: spec.url, ...log, ...(shortLived ? { maintainStatistics: false } : {}) });
  }
}

function fail(url: string, reason: string): never {
  throw new Error(`Invalid storage URL "${redact(url)}": ${reason}. Accepted forms: ${ACCEPTED}`);
}

/** Error messages end up in logs; a Redis or PostgreSQL URL may carry a password. */
function redact(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//***@');
}
