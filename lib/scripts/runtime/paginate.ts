import type { PaginateConfig, ProxyConfig, ProxyResponse } from '../define/service.js';

/** A dotted path into a JSON value: `data.items`, `meta.next_cursor`, `@odata.nextLink`. */
export function pick(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  // A key that itself contains a dot (e.g. `@odata.nextLink`) is tried whole first.
  if (value !== null && typeof value === 'object' && path in (value as Record<string, unknown>)) {
    return (value as Record<string, unknown>)[path];
  }
  let current = value;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The `rel` target of a `Link` response header. */
export function linkTarget(header: string | undefined, rel: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;(.*)$/.exec(part.trim());
    if (match && new RegExp(`rel="?([^";]*\\s)?${rel}(\\s[^";]*)?"?`).test(match[2] ?? '')) return match[1];
  }
  return undefined;
}

/**
 * A next-page link as a path under the provider's base URL. A link anywhere else is refused:
 * a provider's response must not move the script's calls off the provider.
 */
export function linkToEndpoint(link: string, baseUrl: string): { endpoint: string; params: Record<string, string> } {
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const target = new URL(link, base);
  if (target.origin !== base.origin || !target.pathname.startsWith(base.pathname)) {
    throw new Error(`next-page link ${target.origin}${target.pathname} is outside the provider's base URL`);
  }
  const params: Record<string, string> = {};
  target.searchParams.forEach((value, key) => { params[key] = value; });
  return { endpoint: `/${target.pathname.slice(base.pathname.length)}`, params };
}

type Request = ProxyConfig;

/** Yields one array of items per page until the provider says there is no next page. */
export async function* paginate<T>(
  first: Request,
  config: PaginateConfig,
  baseUrl: string,
  send: (request: Request) => Promise<ProxyResponse>,
): AsyncGenerator<T[], void, undefined> {
  let request: Request = { ...first, params: { ...first.params } };
  if (config.limit !== undefined && config.limit_name_in_request) {
    request = withParam(request, config.limit_name_in_request, config.limit, config.type === 'cursor' && config.cursor_in === 'body');
  }
  let offset = config.type === 'offset' ? config.offset_start_value ?? (config.offset_calculation_method === 'page' ? 1 : 0) : 0;
  if (config.type === 'offset') request = withParam(request, config.offset_name_in_request, offset, false);
  for (let page = 0; page < 100_000; page++) {
    const response = await send(request);
    const items = pick(response.data, config.response_path);
    if (!Array.isArray(items)) {
      throw new Error(`paginate: ${config.response_path ? `"${config.response_path}"` : 'the response body'} is not an array`);
    }
    if (items.length > 0) yield items as T[];
    if (config.type === 'cursor') {
      const cursor = pick(response.data, config.cursor_path_in_response);
      if (cursor === undefined || cursor === null || cursor === '' || items.length === 0) return;
      request = withParam(request, config.cursor_name_in_request, String(cursor), config.cursor_in === 'body');
    } else if (config.type === 'link') {
      const link = config.link_rel_in_response_header
        ? linkTarget(response.headers.link, config.link_rel_in_response_header)
        : pick(response.data, config.link_path_in_response_body);
      if (typeof link !== 'string' || link === '') return;
      const next = linkToEndpoint(link, baseUrl);
      request = { ...request, endpoint: next.endpoint, params: next.params };
    } else {
      if (items.length === 0 || (config.limit !== undefined && items.length < config.limit)) return;
      offset += config.offset_calculation_method === 'page' ? 1 : items.length;
      request = withParam(request, config.offset_name_in_request, offset, false);
    }
  }
}

function withParam(request: Request, name: string, value: string | number, inBody: boolean): Request {
  if (inBody) {
    const data = typeof request.data === 'object' && request.data !== null ? request.data : {};
    return { ...request, data: { ...data, [name]: value } };
  }
  return { ...request, params: { ...request.params, [name]: value } };
}
