import { fail } from '../errors.js';
import { withinPrefix, type Collection, type IndexPosition } from '../storage/index.js';
import { listedConnection, storedId, type StoredConnection } from './connection.js';
import { listedView } from './listed-view.js';
import { matchKey, searchList, searchPrefix, searchTerm } from './search.js';

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
  ...(s.end_user ? [`end_user:${s.end_user.id}`, endUserWithin(s.provider_config_key, s.end_user.id)] : []),
];

/** An end user's connections within one integration (an integration key holds no ":"). */
const endUserWithin = (providerConfigKey: string, endUserId: string) =>
  `integration:${providerConfigKey}:end_user:${endUserId}`;

/** How many index entries one call may examine when a filter skips some (a search within an integration or an end user's list). */
const scanLimit = 5_000;

type Page = { records: StoredConnection[]; next: IndexPosition | null };

/**
 * One page of an environment's connections. Without a search, oldest first from the list the
 * filter picks (an end user's within an integration, an end user's, an integration's, or all),
 * read by the store's page reader (off the gateway's thread on SQLite); none is opened.
 * A search reads the search list (lib/connections/search.ts), in order of the matched text;
 * with an end user, that end user's list is read and checked instead (at most `scanLimit`
 * entries per call, so a page may come back short with a cursor to go on).
 */
export async function listConnections(
  store: Collection<StoredConnection>,
  env: string,
  filter: ConnectionFilter,
  limit: number,
  after: IndexPosition | undefined,
): Promise<ConnectionPage> {
  const list = listOf(filter);
  if (filter.search === undefined) {
    const page = await store.pageText(env, list, listedView, { limit, after });
    return { data: page.json, next: page.next };
  }
  const term = searchTerm(filter.search);
  if (term === undefined) fail('invalid_request', 'search: give at least one letter or digit.', { field: 'search' });
  const { records, next } =
    filter.end_user_id === undefined
      ? await searchPage(store, env, filter.provider_config_key, term, limit, after)
      : await scan(
          store,
          env,
          list,
          (s) => matchKey(s, term) !== undefined && s.end_user?.id === filter.end_user_id,
          limit,
          after,
        );
  return { data: JSON.stringify(records.map(listedConnection)), next };
}

function listOf(filter: ConnectionFilter): string {
  const { end_user_id: user, provider_config_key: pck } = filter;
  if (user !== undefined) return pck === undefined ? `end_user:${user}` : endUserWithin(pck, user);
  return pck === undefined ? 'all' : `integration:${pck}`;
}

/**
 * A page of the connections a term matches, from the search list: each is listed once per word
 * start, and shown at the first one the term matches (later ones, and entries a write left
 * behind, are skipped), so a page reads about the page. Within an integration, other
 * integrations' entries are skipped by id, unread: at most `scanLimit` entries a call.
 */
async function searchPage(
  store: Collection<StoredConnection>,
  env: string,
  providerConfigKey: string | undefined,
  term: string,
  limit: number,
  after: IndexPosition | undefined,
): Promise<Page> {
  const prefix = searchPrefix(term);
  if (after && !withinPrefix(after, prefix)) {
    fail('invalid_request', 'cursor: not a cursor of this search.', { field: 'cursor' });
  }
  const ours =
    providerConfigKey === undefined ? () => true : (id: string) => id.startsWith(storedId(providerConfigKey, ''));
  const records: StoredConnection[] = [];
  let cursor = after;
  let examined = 0;
  for (;;) {
    // One more than needed: whether the search goes on is mostly known without another read.
    const want = providerConfigKey === undefined ? limit - records.length + 1 : 500;
    const hits = await store.keyed(env, searchList, prefix, want, cursor);
    const read = hits.filter((h) => ours(h.id));
    const found = await store.getMany(
      env,
      read.map((h) => h.id),
    );
    let at = 0;
    for (const hit of hits) {
      if (records.length === limit) return { records, next: cursor ?? null };
      cursor = hit.position;
      if (!ours(hit.id)) continue;
      const record = found[at++];
      if (record && matchKey(record, term) === hit.key) records.push(record);
    }
    examined += hits.length;
    if (hits.length < want) return { records, next: null };
    if (examined >= scanLimit) return { records, next: cursor ?? null };
  }
}

/** A page of the records of `list` that pass `keep`: at most `scanLimit` entries read per call. */
async function scan(
  store: Collection<StoredConnection>,
  env: string,
  list: string,
  keep: (s: StoredConnection) => boolean,
  limit: number,
  after: IndexPosition | undefined,
): Promise<Page> {
  const records: StoredConnection[] = [];
  let cursor = after;
  let scanned = 0;
  for (;;) {
    const want = Math.min(Math.max(limit, 200), scanLimit - scanned) + 1;
    const positions = await store.page(env, list, want, cursor);
    const found = await store.getMany(
      env,
      positions.slice(0, want - 1).map((p) => p.id),
    );
    for (let i = 0; i < found.length; i++) {
      if (records.length === limit) return { records, next: cursor ?? null };
      cursor = positions[i];
      const record = found[i];
      if (record && keep(record)) records.push(record);
    }
    scanned += found.length;
    if (positions.length < want) return { records, next: null };
    if (records.length === limit || scanned >= scanLimit) return { records, next: cursor ?? null };
  }
}
