import type { Collection, IndexPosition } from '../storage/index.js';
import { listedConnection, type StoredConnection } from './connection.js';
import { listedView } from './listed-view.js';

export interface ConnectionFilter {
  provider_config_key?: string | undefined;
  end_user_id?: string | undefined;
  search?: string | undefined;
}

export interface ConnectionPage {
  /** The page's connections as the API lists them (nothing sealed), a JSON array. */
  data: string;
  /** Where the next page starts; null when the list has no more. */
  next: IndexPosition | null;
}

/** The lists a connection is in, beside its environment's `all`: one per filter the API offers. */
export const connectionLists = (s: StoredConnection): string[] => [
  `integration:${s.provider_config_key}`,
  ...(s.end_user ? [`end_user:${s.end_user.id}`] : []),
];

/** How many index entries one call may examine when a filter has to look at the records (search). */
const scanLimit = 5_000;

function matches(s: StoredConnection, f: ConnectionFilter, search: string | undefined): boolean {
  if (f.provider_config_key && s.provider_config_key !== f.provider_config_key) return false;
  if (f.end_user_id && s.end_user?.id !== f.end_user_id) return false;
  return (
    !search ||
    s.connection_id.toLowerCase().includes(search) ||
    Boolean(s.end_user?.email?.toLowerCase().includes(search)) ||
    Boolean(s.end_user?.display_name?.toLowerCase().includes(search))
  );
}

/**
 * One page of an environment's connections, oldest first. The filter picks the list to read
 * (an end user's, an integration's, or all); only the page's records are read, and none is
 * opened. A plain list is read by the store's page reader (off the gateway's thread on SQLite).
 * A search, or an end user within one integration, also checks the records it reads:
 * at most `scanLimit` per call, so a page may come back short with a cursor to go on.
 */
export async function listConnections(
  store: Collection<StoredConnection>,
  env: string,
  filter: ConnectionFilter,
  limit: number,
  after: IndexPosition | undefined,
): Promise<ConnectionPage> {
  const list = filter.end_user_id
    ? `end_user:${filter.end_user_id}`
    : filter.provider_config_key
      ? `integration:${filter.provider_config_key}`
      : 'all';
  const search = filter.search?.toLowerCase();
  const checks = search !== undefined || (filter.end_user_id !== undefined && filter.provider_config_key !== undefined);
  if (!checks) {
    const page = await store.pageText(env, list, listedView, { limit, after });
    return { data: page.json, next: page.next };
  }
  const { records, next } = await scan(store, env, list, filter, search, limit, after);
  return { data: JSON.stringify(records.map(listedConnection)), next };
}

/** A page of the records of `list` that pass the filter's checks. */
async function scan(
  store: Collection<StoredConnection>,
  env: string,
  list: string,
  filter: ConnectionFilter,
  search: string | undefined,
  limit: number,
  after: IndexPosition | undefined,
): Promise<{ records: StoredConnection[]; next: IndexPosition | null }> {
  const records: StoredConnection[] = [];
  let cursor = after;
  let scanned = 0;
  for (;;) {
    const want = Math.min(Math.max(limit, 200), scanLimit - scanned);
    const positions = await store.page(env, list, want, cursor);
    const found = await store.getMany(
      env,
      positions.map((p) => p.id),
    );
    for (let i = 0; i < positions.length; i++) {
      const record = found[i];
      cursor = positions[i];
      if (record && matches(record, filter, search)) records.push(record);
      if (records.length === limit) {
        const next =
          i < positions.length - 1
            ? cursor
            : positions.length < want
              ? undefined
              : await more(store, env, list, cursor);
        return { records, next: next ?? null };
      }
    }
    scanned += positions.length;
    if (positions.length < want) return { records, next: null };
    if (scanned >= scanLimit) return { records, next: cursor ?? null };
  }
}

/** Whether the list goes on after `at` (so the last page of a list says so, not the one after it). */
async function more(
  store: Collection<StoredConnection>,
  env: string,
  list: string,
  at: IndexPosition | undefined,
): Promise<IndexPosition | undefined> {
  return (await store.page(env, list, 1, at)).length > 0 ? at : undefined;
}
