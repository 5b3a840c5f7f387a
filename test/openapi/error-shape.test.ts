import t from 'tap';
import { startGateway } from '../helpers/gateway.js';

interface Operation {
  security?: Record<string, string[]>[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

/** Routes no request can make fail on demand: they answer whatever is sent (a store outage aside). */
const alwaysAnswer = new Set(['GET /openapi.json', 'GET /health', 'GET /health/ready']);

/** A path with every parameter filled with a name nothing has. */
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => `no-such-${name.toLowerCase()}`);

t.test(
  'every route answers a request that must fail with a documented status and the documented error body',
  async (t) => {
    const gw = await startGateway(t, { metrics: { token: 'mt_error_shape_0123456789', processMetrics: false } });
    const doc = (await gw.call('GET', '/openapi.json', { key: null })).json;
    const skipped: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (alwaysAnswer.has(name)) {
          skipped.push(name);
          continue;
        }
        const isPublic = Array.isArray(op.security) && op.security.length === 0;
        const attempts: { why: string; init: Parameters<typeof gw.call>[2] }[] = [];
        // No key at all: every route behind a key refuses.
        if (!isPublic) attempts.push({ why: 'no key', init: { key: null } });
        // A body that is not JSON, with the key: every route that takes a JSON body refuses.
        if (op.requestBody)
          attempts.push({
            why: 'bad body',
            init: { body: '{not json', headers: { 'content-type': 'application/json' } },
          });
        // A public route: no session, no state, no signature, nothing it knows.
        if (isPublic)
          attempts.push({ why: 'nothing it knows', init: { key: null, ...(method === 'post' ? { body: '' } : {}) } });
        for (const { why, init } of attempts) {
          const res = await gw.call(method.toUpperCase(), concrete(path), init);
          const documented = op.responses[String(res.status)];
          t.ok(res.status >= 400 && documented, `${name} (${why}): ${res.status} is a documented error status`);
          if (Object.values(op.responses).some((r) => r.content?.['text/html'])) {
            t.match(res.headers.get('content-type'), /^text\/html/, `${name} (${why}): the HTML page`);
          } else {
            t.match(res.headers.get('content-type'), /^application\/json/, `${name} (${why}): JSON`);
            t.same(Object.keys(res.json ?? {}), ['error'], `${name} (${why}): one "error" member`);
            t.type(res.json?.error?.code, 'string', `${name} (${why}): error.code`);
            t.type(res.json?.error?.message, 'string', `${name} (${why}): error.message`);
          }
          checked++;
        }
      }
    }
    t.same(skipped.sort(), [...alwaysAnswer].sort(), 'only the routes that always answer are skipped');
    t.ok(checked > 50, `${checked} failing requests checked`);
  },
);
