import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { livenessSchema, readinessSchema } from '../../lib/health/schema.js';
import { startGateway } from '../helpers/gateway.js';

const validate = async (document: unknown) =>
  new Validator().validate(structuredClone(document) as Parameters<Validator['validate']>[0]);

t.test('the served document is a valid OpenAPI 3.1 document, every optional route on', async (t) => {
  const gw = await startGateway(t, { metrics: { token: 'mt_openapi_check_0123456789', processMetrics: false } });
  const res = await gw.call('GET', '/openapi.json', { key: null });
  t.equal(res.status, 200);
  const result = await validate(res.json);
  t.same(result.errors ?? [], [], 'no schema errors');
  t.equal(result.valid, true);
  t.ok(res.json.paths['/metrics']?.get, 'the metrics route is documented when served');
  t.same(res.json.paths['/metrics'].get.security, [{ metricsToken: [] }], 'with its own token');
  const ready = res.json.paths['/health/ready'].get.responses['200'].content['application/json'].schema;
  t.same(ready.required, ['status', 'checks'], 'a success body, where its schema is written down');
  // …and the routes answer what it says.
  t.ok(livenessSchema.safeParse((await gw.call('GET', '/health', { key: null })).json).success, 'GET /health matches');
  t.ok(
    readinessSchema.safeParse((await gw.call('GET', '/health/ready', { key: null })).json).success,
    'GET /health/ready matches',
  );
  t.same(
    res.json.paths['/scripts/deploy'].post.security,
    [{ secretKey: [] }, { deployKey: [] }],
    'deploys take either key',
  );
});

t.test('the validator refuses a broken document (the check above can fail)', async (t) => {
  const gw = await startGateway(t);
  const doc = (await gw.call('GET', '/openapi.json', { key: null })).json;
  const noResponses = structuredClone(doc);
  noResponses.paths['/health'].get.responses = 'none';
  t.equal((await validate(noResponses)).valid, false, 'responses must be an object');
  const badParameter = structuredClone(doc);
  badParameter.paths['/integrations/{uniqueKey}'].get.parameters[0].in = 'body';
  t.equal((await validate(badParameter)).valid, false, '"in": "body" is not OpenAPI 3');
});

t.test(
  'every operation documents its success and its error answers (the error envelope, or the HTML page)',
  async (t) => {
    const gw = await startGateway(t);
    const doc = (await gw.call('GET', '/openapi.json', { key: null })).json;
    for (const [path, methods] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, any> }>>,
    )) {
      for (const [method, op] of Object.entries(methods)) {
        const statuses = Object.keys(op.responses).map(Number);
        t.ok(
          statuses.some((s) => s < 400),
          `${method} ${path}: a success status`,
        );
        const errors = statuses.filter((s) => s >= 400);
        t.ok(errors.includes(500), `${method} ${path}: errors documented (${errors.join(', ')})`);
        for (const status of errors) {
          const content = op.responses[status].content;
          t.ok(
            content['application/json']?.schema.$ref === '#/components/schemas/Error' || content['text/html'],
            `${method} ${path} ${status}: a documented body`,
          );
        }
      }
    }
  },
);
