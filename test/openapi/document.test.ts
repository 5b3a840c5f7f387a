import t from 'tap';
import { startGateway } from '../helpers/gateway.js';

/** `/connections/:connectionId` → `/connections/{connectionId}`, `{*rest}` → `{rest}`. */
const toOpenApi = (path: string) => path.replace(/:(\w+)/g, '{$1}').replace(/\{\*(\w+)\}/g, '{$1}');

t.test('every route the gateway serves is in the served OpenAPI 3.1 document, and nothing else', async (t) => {
  const gw = await startGateway(t);
  const res = await gw.call('GET', '/openapi.json', { key: null });
  t.equal(res.status, 200);
  const doc = res.json;
  t.equal(doc.openapi, '3.1.0');
  const documented = new Set<string>();
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(methods)) documented.add(`${method.toUpperCase()} ${path}`);
  }
  const served = new Set(gw.gateway.routes().map((r) => `${r.method} ${toOpenApi(r.path)}`));
  for (const route of served) t.ok(documented.has(route), `documented: ${route}`);
  for (const op of documented) t.ok(served.has(op), `served: ${op}`);
  const post = doc.paths['/connections'].post;
  t.ok(
    post.requestBody.content['application/json'].schema.properties.credentials,
    'request bodies carry their JSON schema',
  );
  t.same(doc.paths['/health'].get.security, [], 'public routes say so');
});
