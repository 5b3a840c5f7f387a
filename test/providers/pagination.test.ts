import t from 'tap';
import { paginate as sdkPaginate, type PaginationConfig } from '../../lib/client/paginate.js';
import type { ProxyConfig, ProxyResponse } from '../../lib/client/proxy.js';
import type { Paginate } from '../../lib/providers/index.js';
import { cursorOf, firstOffset, linkWithRel, nextLinkOf, nextOffset } from '../../lib/providers/protocol/index.js';
import { nextPage } from '../../lib/proxy/paginate.js';
import { paginate as scriptPaginate } from '../../lib/scripts/runtime/paginate.js';

/*
 * The proxy, the script runtime and the SDK each had a Link header parser; the script one only
 * matched `rel` in its exact case and as the first relation. One parser now serves all three.
 */
const linkTable: [header: string | string[] | undefined, rel: string, expected: string | undefined][] = [
  ['<https://a/2>; rel="next"', 'next', 'https://a/2'],
  ['<https://a/2>; rel=next', 'next', 'https://a/2'],
  ['<https://a/2>; REL="Next"', 'next', 'https://a/2'],
  ['<https://a/2>; rel="next"', 'NEXT', 'https://a/2'],
  ['<https://a/9>; rel="last", <https://a/2>; rel="next"', 'next', 'https://a/2'],
  ['<https://a/2>; rel="next last"', 'last', 'https://a/2'],
  ['<https://a/2>; rel="prev next"', 'next', 'https://a/2'],
  ['<https://a/2>; title="x"; rel="next"', 'next', 'https://a/2'],
  ['<https://a/2?x=1,2>; rel="next"', 'next', 'https://a/2?x=1,2'],
  [['<https://a/1>; rel="prev"', '<https://a/2>; rel="next"'], 'next', 'https://a/2'],
  ['<https://a/2>; rel="nextpage"', 'next', undefined],
  ['<https://a/2>; rel="prev"', 'next', undefined],
  ['', 'next', undefined],
  [undefined, 'next', undefined],
];

t.test('one Link header parser', async (t) => {
  for (const [header, rel, expected] of linkTable)
    t.equal(linkWithRel(header, rel), expected, `${JSON.stringify(header)} rel=${rel}`);
});

t.test('cursor, link and offset steps', async (t) => {
  const cursors: [page: unknown, expected: string | undefined][] = [
    [{ meta: { next: 'c2' } }, 'c2'],
    [{ meta: { next: 42 } }, '42'],
    [{ meta: { next: '' } }, undefined],
    [{ meta: { next: null } }, undefined],
    [{ meta: { next: { deep: 1 } } }, undefined],
    [{ meta: {} }, undefined],
    [{ 'meta.next': 'dotted' }, 'dotted'],
  ];
  for (const [page, expected] of cursors)
    t.equal(cursorOf(page, { cursor_path_in_response: 'meta.next' }), expected, JSON.stringify(page));
  t.equal(
    nextLinkOf({ '@odata.nextLink': 'https://a/2' }, undefined, { link_path_in_response_body: '@odata.nextLink' }),
    'https://a/2',
  );
  t.equal(nextLinkOf({ links: { next: '' } }, undefined, { link_path_in_response_body: 'links.next' }), undefined);
  t.equal(nextLinkOf({}, '<https://a/2>; Rel="NEXT"', { link_rel_in_response_header: 'next' }), 'https://a/2');
  t.equal(firstOffset({}), 0);
  t.equal(firstOffset({ offset_calculation_method: 'page' }), 1);
  t.equal(firstOffset({ offset_calculation_method: 'page', offset_start_value: 0 }), 0);
  t.equal(nextOffset({}, 0, 25), 25);
  t.equal(nextOffset({ offset_calculation_method: 'page' }, 1, 25), 2);
});

// The same two pages, a Link header in mixed case between them, read by each paginator.
const secondUrl = 'https://api.example.com/v1/items?page=2';
const linkHeader = `<https://api.example.com/v1/items?page=9>; rel="last", <${secondUrl}>; Rel="Next"`;
const style = { type: 'link', link_rel_in_response_header: 'next' } as const;

t.test('the proxy follows a mixed-case rel', async (t) => {
  const step = nextPage(
    style as Paginate,
    { path: '/items', query: '', body: undefined },
    { json: [1], headers: { link: linkHeader }, url: new URL('https://api.example.com/v1/items') },
    { origin: 'https://api.example.com', basePath: '/v1' },
  );
  t.match(step, { ok: true, items: [1], next: { path: '/items', query: 'page=2' } });
});

t.test('the script runtime follows a mixed-case rel', async (t) => {
  const sent: unknown[] = [];
  const out: unknown[] = [];
  for await (const page of scriptPaginate(
    { endpoint: '/items' },
    style,
    'https://api.example.com/v1',
    async (request) => {
      sent.push(request.params);
      return {
        status: 200,
        headers: sent.length === 1 ? { link: linkHeader } : {},
        data: sent.length === 1 ? [1] : [2],
      };
    },
  ))
    out.push(...page);
  t.same(out, [1, 2]);
  t.same(sent[1], { page: '2' });
});

t.test('the SDK follows a mixed-case rel', async (t) => {
  const sent: ProxyConfig[] = [];
  const proxy = async <R>(config: ProxyConfig): Promise<ProxyResponse<R>> => {
    sent.push(config);
    const first = sent.length === 1;
    return { status: 200, headers: new Headers(first ? { link: linkHeader } : {}), data: (first ? [1] : [2]) as R };
  };
  const out: unknown[] = [];
  const source = async () => ({ config: style as PaginationConfig, basePath: '/v1' });
  for await (const page of sdkPaginate(proxy, source, {
    providerConfigKey: 'crm',
    connectionId: 'c1',
    endpoint: '/items',
  }))
    out.push(...page);
  t.same(out, [1, 2]);
  t.same(sent[1]?.params, { page: '2' });
});
