// The protocol's pure modules only: the SDK must not load gateway code.
import {
  cursorOf,
  firstOffset,
  nextLinkOf,
  nextOffset,
  valueAt,
  type PaginationStyle,
} from '../providers/protocol/index.js';
import { PorticoError } from './errors.js';
import type { Query } from './http.js';
import type { ProxyConfig, ProxyResponse } from './proxy.js';

/** A catalog entry's `proxy.paginate` (spec 2.1 names the cursor fields; link and offset are the gateway's). */
export type PaginationConfig = PaginationStyle;

export interface PaginateConfig extends ProxyConfig {
  /** Overrides (or replaces) the catalog's pagination settings for this call. */
  paginate?: Partial<PaginationConfig> & { limit?: number };
}

export interface PaginationSource {
  /** The catalog's pagination for the integration's provider, and the path of its API base URL. */
  (providerConfigKey: string): Promise<{ config: PaginationConfig | undefined; basePath: string }>;
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
  if (!spec.type)
    throw failPaging(
      `No pagination settings for integration "${config.providerConfigKey}": pass paginate: { type, … }.`,
    );
  let params: Query = { ...config.params };
  let data = config.data;
  let endpoint = config.endpoint;
  if (limit !== undefined && spec.limit_name_in_request) params[spec.limit_name_in_request] = limit;
  const pageSize = spec.limit_name_in_request ? Number(params[spec.limit_name_in_request]) : Number.NaN;
  const seen = new Set<string>();
  // The first page is taken to start at the style's first offset; later ones follow from what was read.
  let offset = spec.type === 'offset' ? firstOffset(spec) : 0;

  for (;;) {
    const response = await proxy<unknown>({ ...config, endpoint, params, data });
    const found = valueAt(response.data, spec.response_path);
    if (!Array.isArray(found))
      throw failPaging(`The provider's answer holds no array at "${spec.response_path ?? '(root)'}".`);
    yield found as T[];

    let next: string | undefined;
    if (spec.type === 'cursor') {
      next = cursorOf(response.data, spec);
      if (next === undefined) return;
      if (spec.cursor_in === 'body')
        data = { ...(data as Record<string, unknown>), [spec.cursor_name_in_request]: next };
      else params = { ...params, [spec.cursor_name_in_request]: next };
    } else if (spec.type === 'link') {
      next = nextLinkOf(response.data, response.headers.get('link'), spec);
      if (next === undefined) return;
      // The link points at the provider; the gateway adds its host, so keep the path and query.
      const url = new URL(next, 'http://provider.invalid');
      endpoint = url.pathname.startsWith(catalog.basePath + '/')
        ? url.pathname.slice(catalog.basePath.length)
        : url.pathname;
      params = Object.fromEntries(url.searchParams);
    } else {
      if (found.length === 0 || found.length < pageSize) return;
      offset = nextOffset(spec, offset, found.length);
      next = String(offset);
      params = { ...params, [spec.offset_name_in_request]: next };
    }
    // A provider that hands out the same position twice would page forever.
    if (seen.has(next)) return;
    seen.add(next);
  }
}
