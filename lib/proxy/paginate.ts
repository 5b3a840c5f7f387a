import type { IncomingHttpHeaders } from 'node:http';
import type { Paginate } from '../providers/index.js';
import { cursorOf, firstOffset, nextLinkOf, nextOffset, valueAt, withValueAt } from '../providers/protocol/index.js';

/** One page request: provider path (no base path), raw query string, optional JSON body. */
export interface PageRequest {
  path: string;
  query: string;
  body: Buffer | undefined;
}

export interface FetchedPage {
  json: unknown;
  headers: IncomingHttpHeaders;
  /** The absolute URL the page came from (relative next links resolve against it). */
  url: URL;
}

export type PageStep = { ok: true; items: unknown[]; next: PageRequest | undefined } | { ok: false; reason: string };

/** Where the provider's API lives: a next link must stay under it. */
export interface PageScope {
  origin: string;
  basePath: string;
}

const decodeComponent = (value: string) => {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
};

/** The first value of a query parameter, decoded. */
export function queryParam(query: string, name: string): string | undefined {
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (decodeComponent(eq === -1 ? pair : pair.slice(0, eq)) === name)
      return eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
  }
  return undefined;
}

/** The query with `name` set to `value`; every other parameter keeps its exact bytes. */
export function withQueryParam(query: string, name: string, value: string): string {
  const kept = query
    ? query.split('&').filter((pair) => {
        const eq = pair.indexOf('=');
        return decodeComponent(eq === -1 ? pair : pair.slice(0, eq)) !== name;
      })
    : [];
  kept.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return kept.join('&');
}

/** Turns a next-page URL into a page request, if it stays on the provider's origin and base path. */
export function requestFromUrl(
  link: string,
  page: URL,
  scope: PageScope,
  body: Buffer | undefined,
): PageRequest | undefined {
  let url: URL;
  try {
    url = new URL(link, page);
  } catch {
    return undefined;
  }
  if (url.origin !== scope.origin || url.username || url.password) return undefined;
  if (url.pathname !== scope.basePath && !url.pathname.startsWith(`${scope.basePath}/`)) return undefined;
  return { path: url.pathname.slice(scope.basePath.length) || '/', query: url.search.slice(1), body };
}

/**
 * The items of a page: at `response_path`; without one, the page itself when it is an array,
 * else its only array-valued top-level field (Harvest's `users`, `time_entries`, … per endpoint).
 */
function itemsOf(json: unknown, path: string | undefined): unknown[] | undefined {
  const items = valueAt(json, path);
  if (Array.isArray(items)) return items;
  if (path || items === null || typeof items !== 'object') return undefined;
  const arrays = Object.values(items).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

function withBodyCursor(body: Buffer | undefined, name: string, cursor: string): Buffer | undefined {
  let data: unknown = {};
  if (body && body.length > 0) {
    try {
      data = JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  return Buffer.from(JSON.stringify(withValueAt(data as Record<string, unknown>, name, cursor)));
}

/**
 * Reads one page the way the catalog describes (cursor, link or offset) and says what to ask
 * for next; `next` is undefined when the provider has no more pages.
 */
export function nextPage(config: Paginate, request: PageRequest, page: FetchedPage, scope: PageScope): PageStep {
  const items = itemsOf(page.json, config.response_path);
  if (!items)
    return {
      ok: false,
      reason: config.response_path
        ? `the page has no array at "${config.response_path}"`
        : 'the page is neither a JSON array nor an object with exactly one array field',
    };
  switch (config.type) {
    case 'cursor': {
      const cursor = cursorOf(page.json, config);
      if (!cursor || items.length === 0) return { ok: true, items, next: undefined };
      if (config.cursor_in === 'body') {
        const body = withBodyCursor(request.body, config.cursor_name_in_request, cursor);
        if (!body) return { ok: false, reason: 'the request body is not a JSON object, so no cursor can be put in it' };
        return {
          ok: true,
          items,
          next: body.equals(request.body ?? Buffer.alloc(0)) ? undefined : { ...request, body },
        };
      }
      if (queryParam(request.query, config.cursor_name_in_request) === cursor)
        return { ok: true, items, next: undefined };
      return {
        ok: true,
        items,
        next: { ...request, query: withQueryParam(request.query, config.cursor_name_in_request, cursor) },
      };
    }
    case 'link': {
      const link = nextLinkOf(page.json, page.headers.link, config);
      if (!link) return { ok: true, items, next: undefined };
      const next = requestFromUrl(link, page.url, scope, request.body);
      if (!next) return { ok: false, reason: "the next-page link leaves the provider's API address" };
      const same = next.path === request.path && next.query === request.query;
      return { ok: true, items, next: same ? undefined : next };
    }
    case 'offset': {
      const limit = config.limit_name_in_request
        ? Number(queryParam(request.query, config.limit_name_in_request))
        : NaN;
      if (items.length === 0 || items.length < limit) return { ok: true, items, next: undefined };
      const given = Number(queryParam(request.query, config.offset_name_in_request));
      const offset = nextOffset(config, Number.isFinite(given) ? given : firstOffset(config), items.length);
      return {
        ok: true,
        items,
        next: { ...request, query: withQueryParam(request.query, config.offset_name_in_request, String(offset)) },
      };
    }
  }
}
