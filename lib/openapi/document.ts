import { z } from 'zod';
import { errorStatusesOf, methodsOf, openApiPath, type RouteSpec } from '../http/route-spec.js';

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

const security: Record<RouteSpec['auth'], { security?: Record<string, string[]>[] }> = {
  public: { security: [] },
  secret_key: {},
  deploy_key: { security: [{ secretKey: [] }, { deployKey: [] }] },
  metrics_token: { security: [{ metricsToken: [] }] },
};

function errorResponse(spec: RouteSpec) {
  // The authorization pages answer the end user's browser: a failure is a page too.
  if (spec.answers === 'page')
    return { description: 'Error (the HTML result page)', content: { 'text/html': { schema: { type: 'string' } } } };
  return { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function success(spec: RouteSpec) {
  if (!spec.response) return { description: 'Success' };
  return {
    description: 'Success',
    content: {
      'application/json': { schema: z.toJSONSchema(spec.response, { io: 'output', unrepresentable: 'any' }) },
    },
  };
}

function describe(spec: RouteSpec) {
  const params = [...openApiPath(spec.path).matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  for (const header of spec.headers ?? [])
    params.push({ name: header, in: 'header', required: true, schema: { type: 'string' } });
  const query = Object.entries(spec.query ?? {}).map(([name, description]) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema: { type: 'string' },
  }));
  const errors = Object.fromEntries(errorStatusesOf(spec).map((status) => [String(status), errorResponse(spec)]));
  return {
    tags: [spec.tag],
    summary: spec.summary,
    ...security[spec.auth],
    parameters: [...params, ...query],
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: z.toJSONSchema(spec.body, { io: 'input', unrepresentable: 'any' }) },
            },
          },
        }
      : {}),
    responses: { [String(spec.success ?? 200)]: success(spec), ...errors },
  };
}

/** The OpenAPI 3.1 document of the routes `specs` declare. */
export function buildOpenApiDocument(specs: readonly RouteSpec[], serverUrl?: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    for (const method of methodsOf(spec)) (paths[openApiPath(spec.path)] ??= {})[method.toLowerCase()] = describe(spec);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Portico gateway API', version: '1' },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    security: [{ secretKey: [] }],
    components: {
      securitySchemes: {
        secretKey: { type: 'http', scheme: 'bearer', description: "The environment's secret key" },
        deployKey: {
          type: 'http',
          scheme: 'bearer',
          description: "The environment's deploy key: opens POST /scripts/deploy only",
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The metrics token (options.metrics.token)' },
      },
      schemas: { Error: errorSchema },
    },
    paths,
  };
}
