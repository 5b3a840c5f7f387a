// The protocol's pure modules only: this file is bundled into the script process.
import { cursorOf, firstOffset, nextLinkOf, nextOffset, valueAt } from '../../providers/protocol/index.js';
import type { PaginateConfig, ProxyConfig, ProxyResponse } from '../define/service.js';

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
  target.searchParams.forEach((value, key) => {
    params[key] = value;
  });
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
    request = withParam(
      request,
      config.limit_name_in_request,
      config.limit,
      config.type === 'cursor' && config.cursor_in === 'body',
    );
  }
  let offset = config.type === 'offset' ? firstOffset(config) : 0;
  if (config.type === 'offset') request = withParam(request, config.offset_name_in_request, offset, false);
  for (let page = 0; page < 100_000; page++) {
    const response = await send(request);
    const items = valueAt(response.data, config.response_path);
    if (!Array.isArray(items)) {
      throw new Error(
        `paginate: ${config.response_path ? `"${config.response_path}"` : 'the response body'} is not an array`,
      );
    }
    if (items.length > 0) yield items as T[];
    if (config.type === 'cursor') {
      const cursor = cursorOf(response.data, config);
      if (cursor === undefined || items.length === 0) return;
      request = withParam(request, config.cursor_name_in_request, cursor, config.cursor_in === 'body');
    } else if (config.type === 'link') {
      const link = nextLinkOf(response.data, response.headers.link, config);
      if (link === undefined) return;
      const next = linkToEndpoint(link, baseUrl);
      request = { ...request, endpoint: next.endpoint, params: next.params };
    } else {
      if (items.length === 0 || (config.limit !== undefined && items.length < config.limit)) return;
      offset = nextOffset(config, offset, items.length);
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
