import { z } from 'zod';
import { operations, type Operation } from './operations.js';

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};

function describe(op: Operation) {
  const params = [...(op.path.matchAll(/\{(\w+)\}/g))].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  for (const header of op.headers ?? []) params.push({ name: header, in: 'header', required: true, schema: { type: 'string' } });
  const query = Object.entries(op.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } }));
  return {
    tags: [op.tag],
    summary: op.summary,
    ...(op.auth === 'public' ? { security: [] } : {}),
    parameters: [...params, ...query],
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(op.body, { io: 'input', unrepresentable: 'any' }) } } } } : {}),
    responses: {
      [String(op.success ?? 200)]: { description: 'Success' },
      default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
}

/** The OpenAPI 3.1 document of the whole HTTP API. */
export function buildOpenApiDocument(serverUrl?: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = describe(op);
  return {
    openapi: '3.1.0',
    info: { title: 'Portico gateway API', version: '1' },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    security: [{ secretKey: [] }],
    components: {
      securitySchemes: { secretKey: { type: 'http', scheme: 'bearer', description: 'The environment\'s secret key' } },
      schemas: { Error: errorSchema },
    },
    paths,
  };
}
