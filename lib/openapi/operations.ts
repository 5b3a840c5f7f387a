import { z } from 'zod';
import { importConnectionSchema, metadataSchema, patchConnectionSchema } from '../connections/schema.js';
import { createIntegrationSchema, updateIntegrationSchema } from '../integrations/schema.js';

/** One documented operation. Paths use OpenAPI's `{name}` form. */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';
  path: string;
  tag: string;
  summary: string;
  /** `public` operations need no secret key. */
  auth?: 'public';
  body?: z.ZodType;
  /** Header names (beyond Authorization) the operation requires. */
  headers?: string[];
  query?: Record<string, string>;
  /** Status codes besides 200 that the operation answers on success. */
  success?: number;
}

const proxyMethods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/** Every HTTP operation of the gateway. A test fails when a route is missing here. */
export const operations: Operation[] = [
  { method: 'get', path: '/openapi.json', tag: 'meta', summary: 'This document', auth: 'public' },
  { method: 'get', path: '/health', tag: 'meta', summary: 'Liveness: answers 200 while the gateway runs', auth: 'public' },
  { method: 'get', path: '/providers', tag: 'providers', summary: 'The provider catalog (spec 4.1)' },
  { method: 'get', path: '/providers/{provider}', tag: 'providers', summary: 'One provider (spec 4.2)' },
  { method: 'post', path: '/integrations', tag: 'integrations', summary: 'Create an integration', body: createIntegrationSchema, success: 201 },
  { method: 'get', path: '/integrations', tag: 'integrations', summary: 'List integrations' },
  { method: 'get', path: '/integrations/{uniqueKey}', tag: 'integrations', summary: 'Get an integration (secrets masked)' },
  { method: 'patch', path: '/integrations/{uniqueKey}', tag: 'integrations', summary: 'Update an integration (e.g. a renewed client secret)', body: updateIntegrationSchema },
  { method: 'delete', path: '/integrations/{uniqueKey}', tag: 'integrations', summary: 'Delete an integration and its connections' },
  { method: 'post', path: '/connections', tag: 'connections', summary: 'Import a connection (spec 4.5); 201 created, 200 overridden', body: importConnectionSchema, success: 201 },
  { method: 'get', path: '/connections', tag: 'connections', summary: 'List connections', query: { provider_config_key: 'integration filter', end_user_id: 'end user filter', search: 'substring of id, email or name', limit: '1-1000, default 100', cursor: 'next_cursor of the previous page' } },
  { method: 'post', path: '/connections/metadata', tag: 'connections', summary: 'Replace metadata of one or several connections (spec 4.6)', body: metadataSchema },
  { method: 'patch', path: '/connections/metadata', tag: 'connections', summary: 'Merge metadata into one or several connections (spec 4.6)', body: metadataSchema },
  { method: 'get', path: '/connections/{connectionId}', tag: 'connections', summary: 'Get a connection with its credentials', query: { provider_config_key: 'or the Provider-Config-Key header' } },
  { method: 'patch', path: '/connections/{connectionId}', tag: 'connections', summary: 'Patch one connection\'s end user (spec 4.7)', body: patchConnectionSchema, query: { provider_config_key: 'or the Provider-Config-Key header' } },
  { method: 'delete', path: '/connections/{connectionId}', tag: 'connections', summary: 'Delete a connection', query: { provider_config_key: 'or the Provider-Config-Key header' } },
  ...(['get', 'post', 'put', 'patch', 'delete', 'options'] as const).flatMap((method) => [
    { method, path: '/connection', tag: 'removed', summary: 'Removed 20 Jan 2026: answers 410 naming the /connections replacement' },
    { method, path: '/connection/{rest}', tag: 'removed', summary: 'Removed 20 Jan 2026: answers 410 naming the /connections replacement' },
  ]),
];

export { proxyMethods };
