import { PorticoError } from './errors.js';
import type { Query } from './http.js';
import type { ProxyConfig, ProxyResponse } from './proxy.js';

/** A catalog entry's `proxy.paginate` (spec 2.1 names the cursor fields; link and offset are the gateway's). */
export type PaginationConfig =
  | { type: 'cursor'; cursor_path_in_response: string; cursor_name_in_request: string; limit_name_in_request?: string; response_path?: string; cursor_in?: 'query' | 'body' }
  | { type: 'link'; link_rel_in_response_header?: string; link_path_in_response_body?: string; limit_name_in_request?: string; response_path?: string }
  | { type: 'offset'; offset_name_in_request: string; limit_name_in_request?: string; response_path?: string; offset_calculation_method?: 'item' | 'page'; offset_start_value?: number };

export interface PaginateConfig extends ProxyConfig {
  /** Overrides (or replaces) the catalog's pagination settings for this call. */
  paginate?: Partial<PaginationConfig> & { limit?: number };
}

export interface PaginationSource {
  /** The catalog's pagination for the integration's provider, and the path of its API base URL. */
  (providerConfigKey: string): Promise<{ config: PaginationConfig | undefined; basePath: string }>;
}

/** Reads a dotted path; a key that itself holds dots (`@odata.nextLink`) is tried whole first. */
export function readPath(value: unknown, path: string): unknown {
  if (path === '') return value;
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (path in record) return record[path];
  const dot = path.indexOf('.');
  return dot < 0 ? undefined : readPath(record[path.slice(0, dot)], path.slice(dot + 1));
}

/** The URL of `rel` in an RFC 8288 `Link` header. */
function linkRel(header: string | null, rel: string): string | undefined {
  for (const part of (header ?? '').split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && new RegExp(`;\\s*rel="?[^";]*\\b${rel}\\b`, 'i').test(match[2] as string)) return match[1];
  }
  return undefined;
}

const failPaging = (message: string) => new PorticoError({ code: 'pagination_failed', status: 0, message });

/**
 * Pages through a provider list lazily, one proxied call per page, yielding each page's items.
 * Settings come from the catalog entry of the integration's provider, overridable per call.
 */
export async function* paginate<T>(
  proxy: <R>(config: ProxyConfig) => Promise<ProxyResponse<R>>,
  source: PaginationSource,
  config: PaginateConfig,
): AsyncGenerator<T[], void, undefined> {
  const catalog = await source(config.providerConfigKey);
  const { limit, ...override } = config.paginate ?? {};
  const spec = { ...catalog.config, ...override } as PaginationConfig;
  if (!spec.type) throw failPaging(`No pagination settings for integration "${config.providerConfigKey}": pass paginate: { type, … }.`);
  let params: Query = { ...config.params };
  let data = config.data;
  let endpoint = config.endpoint;
  if (limit !== undefined && spec.limit_name_in_request) params[spec.limit_name_in_request] = limit;
  const pageSize = spec.limit_name_in_request ? Number(params[spec.limit_name_in_request]) : Number.NaN;
  const seen = new Set<string>();
  let pages = 0;
  let items = 0;

  for (;;) {
    const response = await proxy<unknown>({ ...config, endpoint, params, data });
    const found = readPath(response.data, spec.response_path ?? '');
    if (!Array.isArray(found)) throw failPaging(`The provider's answer holds no array at "${spec.response_path ?? '(root)'}".`);
    yield found as T[];
    pages++;
    items += found.length;

    let next: string | undefined;
    if (spec.type === 'cursor') {
      const cursor = readPath(response.data, spec.cursor_path_in_response);
      if (cursor === undefined || cursor === null || cursor === '') return;
      next = String(cursor);
      if (spec.cursor_in === 'body') data = { ...(data as Record<string, unknown>), [spec.cursor_name_in_request]: next };
      else params = { ...params, [spec.cursor_name_in_request]: next };
    } else if (spec.type === 'link') {
      next = spec.link_rel_in_response_header
        ? linkRel(response.headers.get('link'), spec.link_rel_in_response_header)
        : readPath(response.data, spec.link_path_in_response_body ?? '') as string | undefined;
      if (typeof next !== 'string' || next === '') return;
      // The link points at the provider; the gateway adds its host, so keep the path and query.
      const url = new URL(next, 'http://provider.invalid');
      endpoint = url.pathname.startsWith(catalog.basePath + '/') ? url.pathname.slice(catalog.basePath.length) : url.pathname;
      params = Object.fromEntries(url.searchParams);
    } else {
      if (found.length === 0 || found.length < pageSize) return;
      const byPage = spec.offset_calculation_method === 'page';
      next = String((spec.offset_start_value ?? (byPage ? 1 : 0)) + (byPage ? pages : items));
      params = { ...params, [spec.offset_name_in_request]: next };
    }
    // A provider that hands out the same position twice would page forever.
    if (seen.has(next)) return;
    seen.add(next);
  }
}
