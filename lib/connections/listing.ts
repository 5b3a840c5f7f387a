import { fail } from '../errors.js';
import { withinPrefix, type Collection, type IndexPosition } from '../storage/index.js';
import { listedConnection, storedId, type StoredConnection } from './connection.js';
import { listedView } from './listed-view.js';
import { matchKey, searchKeys, searchList, searchPrefix, searchTerm } from './search.js';

export interface ConnectionFilter {
  provider_config_key?: string | undefined;
  end_user_id?: string | undefined;
  search?: string | undefined;
}

export interface ConnectionPage {
  /** The page's connections as the API lists them (nothing sealed), a JSON array in UTF-8. */
  data: Buffer;
  /** Where the next page starts; null when the list has no more. */
  next: IndexPosition | null;
}

/**
 * Entries of one connection that a read found without a value, or that its value is not listed
 * by: what a write cut short, or a deletion that found no value, left behind.
 */
export interface Stale {
  id: string;
  entries: { list: string; entry: string }[];
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
/**
 * How long one call goes on reading when a filter skips entries: past it, the page comes back as
 * far as it got, with a cursor. A slow store (each read near the store's deadline) then costs a
 * call about this and one more read, not a dozen reads one after another.
 */
export const readBudgetMs = 1_000;

type Page = { records: StoredConnection[]; next: IndexPosition | null; stale: Stale[] };

/** Notes that `list` holds `entry` for `id`, whose value the read did not find. */
function noteStale(into: Stale[], list: string, id: string, entry: string) {
  const known = into.find((u) => u.id === id);
  if (known) known.entries.push({ list, entry });
  else into.push({ id, entries: [{ list, entry }] });
}

/**
 * One page of an environment's connections. Without a search, oldest first from the list the
 * filter picks (an end user's within an integration, an end user's, an integration's, or all),
 * read by the store's page reader (off the gateway's thread on SQLite); none is opened.
 * A search reads the search list (lib/connections/search.ts), in order of the matched text;
 * with an end user, that end user's list is read and checked instead (at most `scanLimit`
 * entries, and for at most `readBudgetMs`, per call, so a page may come back short with a cursor to go on).
 */
export async function listConnections(
  store: Collection<StoredConnection>,
  env: string,
  filter: ConnectionFilter,
  limit: number,
  after: IndexPosition | undefined,
): Promise<ConnectionPage & { stale: Stale[] }> {
  const list = listOf(filter);
  if (filter.search === undefined) {
    const page = await store.pageText(env, list, listedView, { limit, after });
    return { data: page.json, next: page.next, stale: [] };
  }
  const term = searchTerm(filter.search);
  if (term === undefined) fail('invalid_request', 'search: give at least one letter or digit.', { field: 'search' });
  const until = performance.now() + readBudgetMs;
  const { records, next, stale } =
    filter.end_user_id === undefined
      ? await searchPage(store, env, filter.provider_config_key, term, limit, after, until)
      : await scan(
          store,
          env,
          list,
          (s) => matchKey(s, term) !== undefined && s.end_user?.id === filter.end_user_id,
          limit,
          after,
          until,
        );
  return { data: Buffer.from(JSON.stringify(records.map(listedConnection))), next, stale };
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
 * integrations' entries are skipped by id, unread: at most `scanLimit` entries a call, and no
 * read begun after `until`.
 */
async function searchPage(
  store: Collection<StoredConnection>,
  env: string,
  providerConfigKey: string | undefined,
  term: string,
  limit: number,
  after: IndexPosition | undefined,
  until: number,
): Promise<Page> {
  const prefix = searchPrefix(term);
  if (after && !withinPrefix(after, prefix)) {
    fail('invalid_request', 'cursor: not a cursor of this search.', { field: 'cursor' });
  }
  const ours =
    providerConfigKey === undefined ? () => true : (id: string) => id.startsWith(storedId(providerConfigKey, ''));
  const records: StoredConnection[] = [];
  const stale: Stale[] = [];
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
      if (records.length === limit) return { records, next: cursor ?? null, stale };
      cursor = hit.position;
      if (!ours(hit.id)) continue;
      const record = found[at++];
      if (record && matchKey(record, term) === hit.key) records.push(record);
      else if (!record || !searchKeys(record).some((k) => k.key === hit.key)) {
        noteStale(stale, searchList, hit.id, hit.position.id);
      }
    }
    examined += hits.length;
    if (hits.length < want) return { records, next: null, stale };
    if (examined >= scanLimit || performance.now() >= until) return { records, next: cursor ?? null, stale };
  }
}

/** A page of the records of `list` that pass `keep`: at most `scanLimit` entries read per call, and no read begun after `until`. */
async function scan(
  store: Collection<StoredConnection>,
  env: string,
  list: string,
  keep: (s: StoredConnection) => boolean,
  limit: number,
  after: IndexPosition | undefined,
  until: number,
): Promise<Page> {
  const records: StoredConnection[] = [];
  const stale: Stale[] = [];
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
      if (records.length === limit) return { records, next: cursor ?? null, stale };
      const position = positions[i] as IndexPosition;
      cursor = position;
      const record = found[i];
      if (record && keep(record)) records.push(record);
      else if (!record || !connectionLists(record).includes(list)) noteStale(stale, list, position.id, position.id);
    }
    scanned += found.length;
    if (positions.length < want) return { records, next: null, stale };
    if (records.length === limit || scanned >= scanLimit || performance.now() >= until) {
      return { records, next: cursor ?? null, stale };
    }
  }
}
