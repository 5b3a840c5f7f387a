import { z } from 'zod';
import { createSessionSchema } from '../connect/index.js';
import { importConnectionSchema, metadataSchema, patchConnectionSchema } from '../connections/schema.js';
import { createIntegrationSchema, updateIntegrationSchema } from '../integrations/schema.js';
import { connectionWebhookUrlSchema, environmentPatchSchema } from '../webhooks/schema.js';
import { deploySchema, syncSelectionSchema, triggerActionSchema, triggerSyncSchema } from '../scripts/routes/schema.js';

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
  { method: 'get', path: '/health/ready', tag: 'meta', summary: 'Readiness for load balancers: 200 when the store and the registered workers answer, else 503', auth: 'public' },
  { method: 'get', path: '/providers', tag: 'providers', summary: 'The provider catalog (spec 4.1)' },
  { method: 'get', path: '/providers/{provider}', tag: 'providers', summary: 'One provider (spec 4.2)' },
  { method: 'get', path: '/providers/{provider}/logo.svg', tag: 'providers', summary: 'The provider\'s logo (image/svg+xml): its simple-icons brand mark, or a monogram; cached a week, with an ETag', auth: 'public' },
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
  { method: 'post', path: '/connect/sessions', tag: 'connect', summary: 'Create a connect session for one end user: a short-lived single-use token and the connect link', body: createSessionSchema, success: 201 },
  { method: 'get', path: '/oauth/connect', tag: 'connect', summary: 'The connect link (HTML): straight to the only allowed integration, or a list to choose from', auth: 'public', query: { connect_session_token: 'the session token', origin: 'origin of the opening page: picks among the session\'s allowed_origins, never adds one' } },
  { method: 'get', path: '/oauth/connect/{integration}', tag: 'connect', summary: 'Starts an authorization bound to this browser (an HttpOnly cookie): 302 to the provider (OAuth, admin consent, app installation) or the API key form (HTML)', auth: 'public', query: { connect_session_token: 'the session token', origin: 'origin of the opening page: picks among the session\'s allowed_origins, never adds one', 'connection_config.NAME': 'a connection setting the end user supplies (declared names only)' } },
  { method: 'post', path: '/oauth/connect/{integration}', tag: 'connect', summary: 'The API key / basic credentials / connection settings form (application/x-www-form-urlencoded); answers an HTML page', auth: 'public' },
  { method: 'get', path: '/oauth/callback', tag: 'connect', summary: 'OAuth redirect URI (spec 5.1.1): verifies state, exchanges the code, stores the connection; answers the HTML result page', auth: 'public', query: { state: 'the state sent to the provider', code: 'authorization code', error: 'provider error, e.g. access_denied' } },
  { method: 'get', path: '/oauth/app-setup', tag: 'connect', summary: 'Code-hosting app setup URL (spec 2.5, 5.1.4): ties the installation to the connect session; answers the HTML result page', auth: 'public', query: { state: 'the state sent with the installation link', installation_id: 'the installation', setup_action: 'install, update or request' } },
  { method: 'get', path: '/records', tag: 'records', summary: 'Synced records of one model of one connection, by modification time (spec 4.3)', headers: ['Connection-Id', 'Provider-Config-Key'], query: { model: 'required: the data model', variant: 'model variant, default base', cursor: "a record's _service_metadata.cursor or next_cursor", limit: '1-1000, default 100', filter: 'added, updated, deleted; comma-separated for the union', modified_after: 'ISO 8601 date-time: only records modified after it', delta: 'deprecated alias of modified_after (answered with a Deprecation header)', ids: 'ids=a,b or repeated (ids=a&ids=b), at most 100; a comma inside an id is sent encoded (%2C)' } },
  { method: 'get', path: '/environment', tag: 'webhooks', summary: 'The environment\'s webhook URLs and signing key (masked)' },
  { method: 'patch', path: '/environment', tag: 'webhooks', summary: 'Set or clear (null) the webhook URL and secondary URL', body: environmentPatchSchema },
  { method: 'post', path: '/environment/webhook-signing-key', tag: 'webhooks', summary: 'Rotate the webhook signing key; the answer shows the new key once' },
  { method: 'get', path: '/webhooks/deliveries', tag: 'webhooks', summary: 'Webhook deliveries, newest first, with every attempt', query: { connection_id: 'connection filter', provider_config_key: 'integration filter', type: 'auth, sync, records, action or forward', state: 'pending, delivered, failed or skipped', delivery_id: 'one event', limit: '1-500, default 100', cursor: 'next_cursor of the previous page' } },
  { method: 'post', path: '/webhooks/deliveries/{id}/retry', tag: 'webhooks', summary: 'Send a delivery (by delivery_id) again: same body, new attempts appended; 409 while it is still being attempted', success: 202 },
  { method: 'get', path: '/webhooks/events', tag: 'webhooks', summary: 'Replay feed: every event in the order accepted, with its exact body and current signatures', query: { after: 'the seq (next_after) last processed; default 0: from the oldest kept', limit: '1-500, default 100' } },
  { method: 'get', path: '/connections/{connectionId}/webhook-url', tag: 'webhooks', summary: 'The connection\'s own webhook URL (null: the environment\'s)', query: { provider_config_key: 'or the Provider-Config-Key header' } },
  { method: 'put', path: '/connections/{connectionId}/webhook-url', tag: 'webhooks', summary: 'Send this connection\'s webhooks to its own URL instead of the environment\'s', body: connectionWebhookUrlSchema, query: { provider_config_key: 'or the Provider-Config-Key header' } },
  { method: 'delete', path: '/connections/{connectionId}/webhook-url', tag: 'webhooks', summary: 'Back to the environment\'s webhook URLs', query: { provider_config_key: 'or the Provider-Config-Key header' } },
  { method: 'post', path: '/webhook/{environment}/{integration}', tag: 'webhooks', summary: 'A provider\'s webhook: signature verified, routed to connections, forwarded to the customer; 202', auth: 'public', success: 202 },
  // HEAD is served with GET (the router adds it), so the document lists GET only.
  ...(['get', 'post', 'put', 'patch', 'delete', 'options'] as const).map((method) => ({
    method, path: '/proxy/{path}', tag: 'proxy', headers: ['Provider-Config-Key', 'Connection-Id'],
    summary: 'Forward to the provider API under its base URL with the connection\'s credentials (spec 4.4); status, headers and body are the provider\'s. Optional headers: Retries (0-10), Paginate (true), Paginate-Max-Items, Paginate-Max-Pages, Decompress (true|false)',
  })),
  // Scripts (lib/scripts, docs/scripts.md).
  { method: 'post', path: '/sync/trigger', tag: 'scripts', summary: 'Queue sync runs (incremental or full) for one or every connection of an integration; 202', body: triggerSyncSchema, success: 202 },
  { method: 'post', path: '/sync/pause', tag: 'scripts', summary: 'Pause syncs: scheduled runs are skipped until started', body: syncSelectionSchema },
  { method: 'post', path: '/sync/start', tag: 'scripts', summary: 'Start (resume) syncs; one that never ran runs now', body: syncSelectionSchema },
  { method: 'get', path: '/sync/status', tag: 'scripts', summary: 'Status, latest run and next run of syncs per connection', query: { provider_config_key: 'integration (required)', syncs: 'comma-separated sync names, or * (default: all)', connection_id: 'one connection (default: all)' } },
  { method: 'post', path: '/action/trigger', tag: 'scripts', summary: 'Run an action: answers its output; with X-Async: true, 202 with an id and a status URL', body: triggerActionSchema, headers: ['Provider-Config-Key', 'Connection-Id'] },
  { method: 'get', path: '/action/{id}', tag: 'scripts', summary: 'Status and result of an asynchronous action call' },
  { method: 'get', path: '/logs', tag: 'scripts', summary: 'Stored script logs, newest first', query: { connection_id: 'filter', script: 'filter by script name', run_id: 'filter by run', cursor: 'next_cursor of the previous page', limit: '1-1000, default 100' } },
  { method: 'get', path: '/scripts', tag: 'scripts', summary: 'Scripts enabled in this environment (registered and deployed)', query: { integration: 'filter by integration unique key' } },
  { method: 'post', path: '/scripts/deploy', tag: 'scripts', summary: 'Deploy compiled script bundles (replaces the environment\'s deployed scripts); the CLI uses it', body: deploySchema },
  ...(['get', 'post', 'put', 'patch', 'delete', 'options'] as const).flatMap((method) => [
    { method, path: '/connection', tag: 'removed', summary: 'Removed 20 Jan 2026: answers 410 naming the /connections replacement' },
    { method, path: '/connection/{rest}', tag: 'removed', summary: 'Removed 20 Jan 2026: answers 410 naming the /connections replacement' },
  ]),
];

export { proxyMethods };
