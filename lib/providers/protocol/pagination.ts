import { linkWithRel } from './link-header.js';
import { valueAt } from './json-path.js';

/**
 * How a provider pages a list (the catalog's `proxy.paginate`; spec 2.1 names the cursor fields,
 * link and offset are the gateway's). The proxy, the script runtime and the SDK page by these.
 */
export type PaginationStyle =
  | {
      type: 'cursor';
      cursor_path_in_response: string;
      cursor_name_in_request: string;
      limit_name_in_request?: string | undefined;
      response_path?: string | undefined;
      cursor_in?: 'query' | 'body' | undefined;
    }
  | {
      type: 'link';
      link_rel_in_response_header?: string | undefined;
      link_path_in_response_body?: string | undefined;
      limit_name_in_request?: string | undefined;
      response_path?: string | undefined;
    }
  | {
      type: 'offset';
      offset_name_in_request: string;
      limit_name_in_request?: string | undefined;
      response_path?: string | undefined;
      offset_calculation_method?: 'item' | 'page' | undefined;
      offset_start_value?: number | undefined;
    };

type CursorStyle = Extract<PaginationStyle, { type: 'cursor' }>;
type LinkStyle = Extract<PaginationStyle, { type: 'link' }>;
type OffsetStyle = Extract<PaginationStyle, { type: 'offset' }>;

/** The next cursor a page names: a non-empty string or a number; anything else ends the list. */
export function cursorOf(page: unknown, style: Pick<CursorStyle, 'cursor_path_in_response'>): string | undefined {
  const raw = valueAt(page, style.cursor_path_in_response);
  const cursor = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
  return cursor === '' ? undefined : cursor;
}

/** The next-page link: from the `Link` header's rel when the style names one, else from the body. */
export function nextLinkOf(
  page: unknown,
  linkHeader: string | readonly string[] | null | undefined,
  style: Pick<LinkStyle, 'link_rel_in_response_header' | 'link_path_in_response_body'>,
): string | undefined {
  const link = style.link_rel_in_response_header
    ? linkWithRel(linkHeader, style.link_rel_in_response_header)
    : valueAt(page, style.link_path_in_response_body);
  return typeof link === 'string' && link !== '' ? link : undefined;
}

/** The first page's offset: the catalog's start, else 1 when counting pages and 0 when counting items. */
export const firstOffset = (style: Pick<OffsetStyle, 'offset_start_value' | 'offset_calculation_method'>): number =>
  style.offset_start_value ?? (style.offset_calculation_method === 'page' ? 1 : 0);

/** The offset after a page of `count` items that started at `current`. */
export const nextOffset = (
  style: Pick<OffsetStyle, 'offset_calculation_method'>,
  current: number,
  count: number,
): number => (style.offset_calculation_method === 'page' ? current + 1 : current + count);
