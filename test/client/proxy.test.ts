import type { ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { createPorticoClient, PorticoError } from '../../lib/client/index.js';
import { devKey, startGateway } from '../helpers/gateway.js';
import { fakeProvider, type Received } from '../helpers/http.js';

const provider = (name: string, baseUrl: string, paginate?: Record<string, unknown>) => ({
  name,
  display_name: name,
  logo_url: 'https://cdn.portico.dev/providers/test.svg',
  categories: ['test'],
  auth_mode: 'API_KEY',
  docs: 'https://example.com/docs',
  proxy: { base_url: baseUrl, ...(paginate ? { paginate } : {}) },
});

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(JSON.stringify(body));
};

/** A gateway with one API_KEY integration per fake provider, and a client for it. */
async function setup(
  t: Test,
  respond: (req: Received, res: ServerResponse, base: string) => void,
  paginate?: Record<string, unknown>,
  basePath = '',
) {
  let base = '';
  const api = await fakeProvider((req, res) => respond(req, res, base));
  t.teardown(() => api.close());
  base = api.url + basePath;
  const gw = await startGateway(t, { providers: [provider('items-api', base, paginate)] });
  const portico = createPorticoClient({ baseUrl: gw.url, secretKey: devKey });
  await portico.createIntegration({ unique_key: 'items', provider: 'items-api' });
  await portico.importConnection({
    provider_config_key: 'items',
    connection_id: 'acme',
    credentials: { type: 'API_KEY', apiKey: 'sk_provider' },
  });
  return { api, portico, gw };
}

const ids = { providerConfigKey: 'items', connectionId: 'acme' };

t.test('get/post/put/patch/delete/proxy go through /proxy with the connection headers', async (t) => {
  const { api, portico } = await setup(t, (req, res) =>
    send(res, req.method === 'POST' ? 201 : 200, { method: req.method, url: req.url, body: req.body.toString() }),
  );
  const got = await portico.get<{ url: string }>({
    endpoint: '/v1/users',
    ...ids,
    params: { limit: 2, tags: ['a', 'b'] },
    headers: { 'x-trace': 't1' },
  });
  t.equal(got.status, 200);
  t.equal(got.data.url, '/v1/users?limit=2&tags=a&tags=b');
  const received = api.received[0];
  t.equal(received?.headers.authorization, 'Bearer sk_provider', "the connection's key, not the secret key");
  t.equal(received?.headers['x-trace'], 't1');
  t.equal(received?.headers['provider-config-key'], undefined, 'control headers stay at the gateway');

  const posted = await portico.post<{ body: string }>({ endpoint: 'v1/users', ...ids, data: { name: 'Ada' } });
  t.equal(posted.status, 201);
  t.same(JSON.parse(posted.data.body), { name: 'Ada' });
  t.equal(api.received[1]?.headers['content-type'], 'application/json');
  for (const method of ['put', 'patch', 'delete'] as const) {
    const res = await portico[method]<{ method: string }>({
      endpoint: '/v1/users/1',
      ...ids,
      data: method === 'delete' ? undefined : 'raw text',
    });
    t.equal(res.data.method, method.toUpperCase());
  }
  t.equal(api.received[2]?.body.toString(), 'raw text', 'a string body is sent as is');
  const viaProxy = await portico.proxy<{ method: string }>({
    method: 'PATCH',
    endpoint: '/v1/x',
    ...ids,
    data: [1, 2],
  });
  t.equal(viaProxy.data.method, 'PATCH');
  const text = await portico.get({ endpoint: '/v1/users', ...ids, responseType: 'text' });
  t.type(text.data, 'string');
});

t.test('provider errors and gateway errors are told apart', async (t) => {
  const { portico } = await setup(t, (_req, res) =>
    send(res, 404, { error: { code: 'itemNotFound', message: 'The resource could not be found.' } }),
  );
  const fromProvider = await portico.get({ endpoint: '/v1/missing', ...ids }).catch((e: unknown) => e);
  t.ok(PorticoError.is(fromProvider));
  t.equal(
    (fromProvider as PorticoError).code,
    'provider_error',
    "an error-shaped provider body is still the provider's",
  );
  t.equal((fromProvider as PorticoError).status, 404);
  t.same((fromProvider as PorticoError).response?.data, {
    error: { code: 'itemNotFound', message: 'The resource could not be found.' },
  });

  const fromGateway = await portico
    .get({ endpoint: '/v1/users', providerConfigKey: 'items', connectionId: 'nobody' })
    .catch((e: unknown) => e);
  t.equal((fromGateway as PorticoError).code, 'unknown_connection');
  t.equal((fromGateway as PorticoError).status, 404);
  t.equal((fromGateway as PorticoError).response, undefined);
});

t.test('paginate: cursor settings from the catalog, one proxied call per page', async (t) => {
  const all = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }));
  const { api, portico } = await setup(
    t,
    (req, res) => {
      const url = new URL(req.url, 'http://x');
      const start = Number(url.searchParams.get('after') ?? 0);
      const size = Number(url.searchParams.get('page_size'));
      const page = all.slice(start, start + size);
      send(res, 200, {
        data: { results: page },
        meta: { next: start + size < all.length ? String(start + size) : null },
      });
    },
    {
      type: 'cursor',
      cursor_path_in_response: 'meta.next',
      cursor_name_in_request: 'after',
      limit_name_in_request: 'page_size',
      response_path: 'data.results',
    },
  );
  const pages: unknown[][] = [];
  for await (const page of portico.paginate<{ id: number }>({ endpoint: '/v1/items', ...ids, paginate: { limit: 3 } }))
    pages.push(page);
  t.same(pages, [[{ id: 1 }, { id: 2 }, { id: 3 }], [{ id: 4 }, { id: 5 }, { id: 6 }], [{ id: 7 }]]);
  t.same(
    api.received.map((r) => r.url),
    ['/v1/items?page_size=3', '/v1/items?page_size=3&after=3', '/v1/items?page_size=3&after=6'],
  );

  // Lazy: breaking out after the first page makes no further call.
  const before = api.received.length;
  for await (const page of portico.paginate({ endpoint: '/v1/items', ...ids, paginate: { limit: 3 } })) {
    t.equal(page.length, 3);
    break;
  }
  t.equal(api.received.length, before + 1);
});

t.test('paginate: Link headers under a base path, and offsets', async (t) => {
  const { api, portico } = await setup(
    t,
    (req, res, base) => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/api/v3/repos') {
        const page = Number(url.searchParams.get('page') ?? 1);
        send(
          res,
          200,
          [{ page }],
          page < 3
            ? { link: `<${base}/repos?page=${page + 1}&per_page=1>; rel="next", <${base}/repos?page=3>; rel="last"` }
            : {},
        );
        return;
      }
      const offset = Number(url.searchParams.get('start') ?? 0);
      send(res, 200, { values: offset < 4 ? [offset, offset + 1] : [] });
    },
    { type: 'link', link_rel_in_response_header: 'next', limit_name_in_request: 'per_page' },
    '/api/v3',
  );
  const pages: unknown[][] = [];
  for await (const page of portico.paginate({ endpoint: '/repos', ...ids })) pages.push(page);
  t.same(pages, [[{ page: 1 }], [{ page: 2 }], [{ page: 3 }]]);
  t.same(
    api.received.map((r) => r.url),
    ['/api/v3/repos', '/api/v3/repos?page=2&per_page=1', '/api/v3/repos?page=3&per_page=1'],
  );

  const offsets: unknown[][] = [];
  for await (const page of portico.paginate({
    endpoint: '/values',
    ...ids,
    paginate: { type: 'offset', offset_name_in_request: 'start', response_path: 'values' },
  }))
    offsets.push(page);
  t.same(offsets, [[0, 1], [2, 3], []], 'until an empty page');

  const noArray = await (async () => {
    for await (const _ of portico.paginate({
      endpoint: '/values',
      ...ids,
      paginate: { type: 'cursor', cursor_path_in_response: 'next', cursor_name_in_request: 'c', response_path: 'nope' },
    }))
      void _;
  })().catch((e: unknown) => e);
  t.equal((noArray as PorticoError).code, 'pagination_failed');
});
