import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import type { Received } from '../helpers/http.js';
import { fakeProvider } from '../helpers/http.js';
import { apiKey, proxySetup } from './helpers.js';

const all = [1, 2, 3, 4, 5].map((id) => ({ id, name: `n${id}` }));
const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const query = (req: Received) => new URL(req.url, 'http://x').searchParams;
const paginated = { paginate: 'true' };

t.test('cursor in the query (cursor_path_in_response, cursor_name_in_request, response_path)', async (t) => {
  const s = await proxySetup(t, {
    proxy: {
      paginate: {
        type: 'cursor',
        cursor_path_in_response: 'response_metadata.next_cursor',
        cursor_name_in_request: 'cursor',
        limit_name_in_request: 'limit',
        response_path: 'members',
      },
    },
    respond: (req, res) => {
      const start = Number(query(req).get('cursor') ?? 0);
      const limit = Number(query(req).get('limit'));
      const next = start + limit < all.length ? String(start + limit) : '';
      json(res, { ok: true, members: all.slice(start, start + limit), response_metadata: { next_cursor: next } });
    },
  });
  const res = await s.proxy('GET', '/users.list?limit=2', { headers: paginated });
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], 'application/json');
  t.same(res.json, all, 'one JSON array of the items of every page');
  t.same(
    s.provider.received.map((r) => r.url),
    ['/api/users.list?limit=2', '/api/users.list?limit=2&cursor=2', '/api/users.list?limit=2&cursor=4'],
  );
  t.ok(
    s.provider.received.every((r) => r.headers.authorization === `Bearer ${apiKey}`),
    'every page carries the credentials',
  );
});

t.test('cursor in a POST body (cursor_in: body)', async (t) => {
  const s = await proxySetup(t, {
    proxy: {
      paginate: {
        type: 'cursor',
        cursor_path_in_response: 'next_cursor',
        cursor_name_in_request: 'start_cursor',
        cursor_in: 'body',
        response_path: 'results',
      },
    },
    respond: (req, res) => {
      const body = JSON.parse(req.body.toString()) as { start_cursor?: string; filter: unknown };
      const start = Number(body.start_cursor ?? 0);
      json(res, {
        results: all.slice(start, start + 3),
        next_cursor: start + 3 < all.length ? String(start + 3) : null,
        has_more: start + 3 < all.length,
      });
    },
  });
  const res = await s.proxy('POST', '/v1/databases/db1/query', {
    headers: { ...paginated, 'content-type': 'application/json' },
    body: '{"filter":{"property":"Done"}}',
  });
  t.same(res.json, all);
  t.same(
    s.provider.received.map((r) => JSON.parse(r.body.toString())),
    [{ filter: { property: 'Done' } }, { filter: { property: 'Done' }, start_cursor: '3' }],
    'the cursor goes into the body, the rest of the body stays',
  );
});

t.test('link in the Link header (rel="next"), relative or absolute', async (t) => {
  const s = await proxySetup(t, {
    proxy: { paginate: { type: 'link', link_rel_in_response_header: 'next', limit_name_in_request: 'per_page' } },
    respond: (req, res) => {
      const page = Number(query(req).get('page') ?? 1);
      const links =
        page === 1
          ? `<${s.provider.url}/api/repos?per_page=2&page=2>; rel="next", <${s.provider.url}/api/repos?page=3>; rel="last"`
          : page === 2
            ? '</api/repos?per_page=2&page=3>; rel="next"'
            : '</api/repos?page=1>; rel="first"';
      json(res, all.slice((page - 1) * 2, page * 2), { link: links });
    },
  });
  const res = await s.proxy('GET', '/repos?per_page=2', { headers: paginated });
  t.same(res.json, all);
  t.same(
    s.provider.received.map((r) => r.url),
    ['/api/repos?per_page=2', '/api/repos?per_page=2&page=2', '/api/repos?per_page=2&page=3'],
  );
});

t.test('link in the body (@odata.nextLink), pages gzip-encoded', async (t) => {
  const s = await proxySetup(t, {
    basePath: '',
    proxy: { paginate: { type: 'link', link_path_in_response_body: '@odata.nextLink', response_path: 'value' } },
    respond: (req, res) => {
      const skip = Number(query(req).get('$skiptoken') ?? 0);
      const body = {
        value: all.slice(skip, skip + 2),
        ...(skip + 2 < all.length
          ? { '@odata.nextLink': `${s.provider.url}/v1.0/users?$top=2&$skiptoken=${skip + 2}` }
          : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify(body)));
    },
  });
  const res = await s.proxy('GET', '/v1.0/users?$top=2', { headers: paginated });
  t.same(res.json, all);
  t.equal(s.provider.received.length, 3);
  t.equal(s.provider.received[0]?.headers['accept-encoding'], 'gzip, deflate, br');
});

t.test('offset by items and by pages', async (t) => {
  const byItem = await proxySetup(t, {
    proxy: {
      paginate: {
        type: 'offset',
        offset_name_in_request: 'offset',
        limit_name_in_request: 'limit',
        response_path: 'data',
      },
    },
    respond: (req, res) => {
      const offset = Number(query(req).get('offset') ?? 0);
      json(res, { data: all.slice(offset, offset + Number(query(req).get('limit'))) });
    },
  });
  t.same((await byItem.proxy('GET', '/deals?limit=2', { headers: paginated })).json, all);
  t.same(
    byItem.provider.received.map((r) => r.url),
    ['/api/deals?limit=2', '/api/deals?limit=2&offset=2', '/api/deals?limit=2&offset=4'],
    'stops at a short page',
  );

  const byPage = await proxySetup(t, {
    proxy: {
      paginate: {
        type: 'offset',
        offset_name_in_request: 'page',
        offset_calculation_method: 'page',
        offset_start_value: 1,
      },
    },
    respond: (req, res) => {
      const page = Number(query(req).get('page') ?? 1);
      json(res, all.slice((page - 1) * 2, page * 2));
    },
  });
  t.same((await byPage.proxy('GET', '/items', { headers: paginated })).json, all);
  t.same(
    byPage.provider.received.map((r) => r.url),
    ['/api/items', '/api/items?page=2', '/api/items?page=3', '/api/items?page=4'],
    'without a page size, stops at an empty page',
  );
});

const cursorEverywhere = {
  proxy: {
    paginate: {
      type: 'cursor',
      cursor_path_in_response: 'next',
      cursor_name_in_request: 'after',
      response_path: 'items',
    },
  },
  respond: (req: Received, res: ServerResponse) => {
    const after = Number(query(req).get('after') ?? 0);
    json(res, { items: [{ n: after * 2 }, { n: after * 2 + 1 }], next: after + 1 });
  },
};

t.test('item and page caps stop an endless walk', async (t) => {
  const s = await proxySetup(t, { ...cursorEverywhere, gateway: { proxy: { maxPages: 4 } } });
  const capped = await s.proxy('GET', '/events', { headers: { ...paginated, 'paginate-max-items': '3' } });
  t.same(capped.json, [{ n: 0 }, { n: 1 }, { n: 2 }]);
  t.equal(s.provider.received.length, 2, 'no page is fetched beyond the cap');
  const pages = await s.proxy('GET', '/events', { headers: { ...paginated, 'paginate-max-pages': '2' } });
  t.equal(pages.json.length, 4);
  const gatewayCap = await s.proxy('GET', '/events', { headers: paginated });
  t.equal(gatewayCap.json.length, 8, "the gateway's own page cap bounds a provider that never ends");
  t.equal(
    (await s.proxy('GET', '/events', { headers: { ...paginated, 'paginate-max-pages': '9' } })).status,
    400,
    "a page cap above the gateway's is refused",
  );
  t.equal(
    (await s.proxy('GET', '/events', { headers: { 'paginate-max-items': '9' } })).status,
    400,
    'caps need Paginate: true',
  );
  const viaApi = await s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/events',
    paginate: { maxItems: 5 },
  });
  t.same(
    viaApi.body,
    [0, 1, 2, 3, 4].map((n) => ({ n })),
  );
  t.same(viaApi.pagination, { pages: 3, items: 5, complete: false });
});

t.test('a failing first page passes through; a failing later page cuts the response', async (t) => {
  let calls = 0;
  const s = await proxySetup(t, {
    ...cursorEverywhere,
    respond: (req, res) => {
      calls++;
      if (req.headers['x-scenario'] === 'first') {
        res.writeHead(403, { 'content-type': 'application/json', 'x-why': 'scope' });
        return void res.end('{"error":"missing scope"}');
      }
      if (query(req).get('after') === '2') {
        res.writeHead(500);
        return void res.end('boom');
      }
      cursorEverywhere.respond(req, res);
    },
  });
  const first = await s.proxy('GET', '/events', { headers: { ...paginated, 'x-scenario': 'first' } });
  t.equal(first.status, 403);
  t.equal(first.body.toString(), '{"error":"missing scope"}');
  t.equal(first.headers['x-why'], 'scope');
  const later = await s.proxy('GET', '/events', { headers: paginated }).catch((error: Error) => error);
  t.ok(later instanceof Error || later.json === undefined, 'a cut response is never a well-formed array');
  t.equal(calls, 4);
  const viaApi = s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/events',
    paginate: true,
  });
  await t.rejects(viaApi, { code: 'upstream_error', message: /page 3/ });
});

t.test('a next link to another host is not followed', async (t) => {
  const other = await fakeProvider();
  t.teardown(() => other.close());
  const s = await proxySetup(t, {
    proxy: { paginate: { type: 'link', link_path_in_response_body: 'next', response_path: 'items' } },
    respond: (_req, res) => json(res, { items: all, next: `${other.url}/api/steal?token=x` }),
  });
  const viaApi = s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/things',
    paginate: true,
  });
  await t.rejects(viaApi, { code: 'upstream_error', message: /leaves the provider/ });
  const viaRoute = await s.proxy('GET', '/things', { headers: paginated });
  t.equal(viaRoute.status, 502, 'refused on the first page, before any item went out: an error answer');
  t.equal(viaRoute.json.error.code, 'upstream_error');
  t.equal(other.received.length, 0, 'the other host heard nothing');
});

t.test('Paginate on a provider without pagination settings', async (t) => {
  const s = await proxySetup(t);
  const res = await s.proxy('GET', '/x', { headers: paginated });
  t.equal(res.status, 400);
  t.match(res.json.error.message, 'proxy.paginate');
});

t.test(
  "Harvest-style: account header from connection_config, items in the page's only array, next link in the body",
  async (t) => {
    const s = await proxySetup(t, {
      basePath: '/v2',
      provider: { connection_configuration: ['account_id'] },
      proxy: {
        headers: { 'Harvest-Account-Id': '${connection_config.account_id}' },
        paginate: { type: 'link', link_path_in_response_body: 'links.next', limit_name_in_request: 'per_page' },
      },
      connection: { connection_config: { account_id: '98765' } },
      respond: (req, res) => {
        const page = Number(query(req).get('page') ?? 1);
        json(res, {
          users: all.slice((page - 1) * 3, page * 3),
          per_page: 3,
          total_pages: 2,
          links: { next: page < 2 ? `${s.provider.url}/v2/users?page=2&per_page=3` : null },
        });
      },
    });
    const res = await s.proxy('GET', '/users?per_page=3', { headers: paginated });
    t.same(res.json, all);
    t.same(
      s.provider.received.map((r) => r.headers['harvest-account-id']),
      ['98765', '98765'],
    );
  },
);
