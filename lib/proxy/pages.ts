import { GatewayError } from '../errors.js';
import { noBody } from './body.js';
import type { Exchange } from './exchange.js';
import type { ResolvedProxyOptions } from './options.js';
import { nextPage, type PageRequest } from './paginate.js';
import type { PreparedCall } from './prepare.js';
import { readResponse, type BufferedResponse } from './read-response.js';
import { checkProviderPath, checkProviderQuery } from './safe-target.js';
import type { Cancel } from './upstream.js';

export type PageEvent =
  /** The first page was not a success: the provider's answer, for the caller as it is. */
  { kind: 'failed'; response: BufferedResponse } | { kind: 'items'; items: unknown[] };

export interface WalkSummary {
  pages: number;
  items: number;
  /** False when a cap (items or pages) stopped the walk before the provider's last page. */
  complete: boolean;
}

const pageFailure = (page: number, why: string) =>
  new GatewayError('upstream_error', `Pagination stopped at page ${page}: ${why}.`, { page });

const overBudget = (budget: number) =>
  new GatewayError(
    'upstream_pages_too_large',
    `The provider's pages add up to more than the ${budget} bytes one paginated call may read.`,
    { max_bytes: budget },
  );

/**
 * Paginate step: follows the provider's pages as the catalog's `proxy.paginate` describes,
 * each page through the same exchange (credentials, retries), yielding the items page by page.
 * A later page that fails throws (the caller has items already); the first one is yielded.
 * All pages together are read within `maxBytes` (decoded): a hostile provider cannot make one
 * call hold or send more.
 * The walk just ends when the caller goes away (`cancel.aborted`).
 */
export async function* walkPages(
  exchange: Exchange,
  options: ResolvedProxyOptions,
  call: PreparedCall,
  body: Buffer | undefined,
  cancel: Cancel,
): AsyncGenerator<PageEvent, WalkSummary> {
  const paginate = call.paginate;
  if (!paginate) throw new Error('walkPages needs a paginated call');
  const { base } = call;
  const scope = { origin: `${base.protocol}//${base.host}`, basePath: base.basePath };
  let request: PageRequest | undefined = { path: call.path, query: call.query, body };
  let pages = 0;
  let items = 0;
  let bytes = 0;
  while (request && pages < paginate.maxPages && items < paginate.maxItems) {
    const response = await exchange(
      call,
      request,
      request.body ? { kind: 'bytes', bytes: request.body } : noBody(),
      cancel,
    );
    if (!response) return { pages, items, complete: false };
    const budgetLeft = paginate.maxBytes - bytes;
    const page = await readResponse(response, Math.min(options.maxPageBytes, budgetLeft), true, call.maxDecodedBytes)
      .catch((error: unknown) => {
        // The page is within its own cap but not within what is left of the call's budget.
        if (GatewayError.is(error) && error.code === 'upstream_response_too_large' && budgetLeft < options.maxPageBytes)
          throw overBudget(paginate.maxBytes);
        throw error;
      })
      .finally(() => cancel.body?.bodyRead());
    bytes += page.body.length;
    pages++;
    if (page.status < 200 || page.status > 299) {
      if (pages === 1) {
        yield { kind: 'failed', response: page };
        return { pages, items, complete: false };
      }
      throw pageFailure(pages, `the provider answered ${page.status}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(page.body.toString('utf8'));
    } catch {
      throw pageFailure(pages, 'the page is not JSON');
    }
    const url = new URL(`${scope.origin}${base.basePath}${request.path}${request.query ? `?${request.query}` : ''}`);
    const step = nextPage(paginate.config, request, { json, headers: page.headers, url }, scope);
    if (!step.ok) throw pageFailure(pages, step.reason);
    const room = paginate.maxItems - items;
    const taken = step.items.length > room ? step.items.slice(0, room) : step.items;
    items += taken.length;
    if (taken.length > 0) yield { kind: 'items', items: taken };
    request = step.next;
    if (request) {
      // A next link comes from the provider: it gets the same checks as a caller's path.
      checkProviderPath(request.path);
      checkProviderQuery(request.query);
    }
  }
  return { pages, items, complete: request === undefined };
}
