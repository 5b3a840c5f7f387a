import t from 'tap';
import { startGateway } from '../helpers/gateway.js';

t.test('every /connection route answers 410 naming its /connections replacement (spec 9)', async (t) => {
  const gw = await startGateway(t);
  const cases: [string, string, RegExp][] = [
    ['GET', '/connection', /GET \/connections/],
    ['POST', '/connection', /POST \/connections/],
    ['GET', '/connection/abc?provider_config_key=gh', /GET \/connections\/abc/],
    ['DELETE', '/connection/abc', /DELETE \/connections\/abc/],
    ['POST', '/connection/abc/metadata', /POST \/connections\/metadata/],
    ['PATCH', '/connection/abc/metadata', /PATCH \/connections\/metadata/],
  ];
  for (const [method, path, replacement] of cases) {
    const res = await gw.call(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
    t.equal(res.status, 410, `${method} ${path}`);
    t.equal(res.json.error.code, 'endpoint_removed');
    t.match(res.json.error.message, replacement);
    t.match(res.json.error.message, /20 January 2026/);
  }
  const unauthenticated = await gw.call('GET', '/connection', { key: null });
  t.equal(unauthenticated.status, 401, 'removed routes still need the key');
});

t.test('the 410 for a metadata route names a route that exists, with the method that does the same', async (t) => {
  const gw = await startGateway(t);
  const served = gw.gateway.routes().map((r) => `${r.method} ${r.path}`);
  const cases: [string, string][] = [
    ['GET', 'GET /connections/:connectionId'],
    ['DELETE', 'POST /connections/metadata'],
    ['POST', 'POST /connections/metadata'],
    ['PATCH', 'PATCH /connections/metadata'],
  ];
  for (const [method, route] of cases) {
    const res = await gw.call(
      method,
      '/connection/abc/metadata',
      method === 'GET' || method === 'DELETE' ? {} : { body: {} },
    );
    t.equal(res.status, 410, `${method}`);
    const named = String(res.json.error.replacement);
    const [namedMethod, namedPath] = named.split(' ');
    t.ok(served.includes(route), `${route} is served`);
    t.equal(
      `${namedMethod} ${namedPath?.replace(/\?.*$/, '').replace('/connections/abc', '/connections/:connectionId')}`,
      route,
      `${method} names ${route}: ${named}`,
    );
  }
  const get = await gw.call('GET', '/connection/abc/metadata');
  t.match(get.json.error.message, /GET \/connections\/abc\?provider_config_key=.*"metadata" field/);
  const del = await gw.call('DELETE', '/connection/abc/metadata');
  t.match(del.json.error.message, /"metadata": \{\}/);
});
