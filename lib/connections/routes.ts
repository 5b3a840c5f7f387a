import type { Context } from 'koa';
import { fail } from '../errors.js';
import { readJson } from '../http/body.js';
import { parseOrFail } from '../http/validate.js';
import { param } from '../http/params.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';
import { uniqueKey } from '../integrations/index.js';
import { publicConnection } from './connection.js';
import { importConnectionSchema, listConnectionsQuery, metadataSchema, patchConnectionSchema } from './schema.js';
import type { ConnectionInput, ConnectionService } from './service.js';
import { decodePositionCursor, encodePositionCursor } from '../http/position-cursor.js';

/** How a list answer begins; the page's bytes follow. */
const dataOpen = Buffer.from('{"data":');

/** The integration a single-connection route targets: `?provider_config_key=` or the header. */
function providerConfigKeyOf(ctx: Context): string {
  const value =
    (typeof ctx.query.provider_config_key === 'string' ? ctx.query.provider_config_key : '') ||
    ctx.get('provider-config-key');
  if (!value)
    fail(
      'missing_provider_config_key',
      'Name the integration: ?provider_config_key=… or the Provider-Config-Key header.',
    );
  return parseOrFail(uniqueKey, value, 'invalid_request');
}

/**
 * Checks imported credentials with the provider before they are stored (`"verify": true`);
 * throws the error to answer. The gateway supplies it (the check lives with the connect flow).
 */
export type VerifyImport = (environment: string, input: ConnectionInput) => Promise<void>;

export function createConnectionRoutes(connections: ConnectionService, verify?: VerifyImport): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'connections' });

  routes.post(
    '/connections',
    {
      summary: 'Import a connection (spec 4.5); 201 created, 200 overridden',
      body: importConnectionSchema,
      success: 201,
      errors: [404, 424],
    },
    async (ctx) => {
      const { verify: verifyFirst, ...input } = parseOrFail(importConnectionSchema, await readJson(ctx));
      if (verifyFirst) {
        if (input.credentials.type !== 'API_KEY' && input.credentials.type !== 'BASIC') {
          fail(
            'invalid_request',
            `verify: only API_KEY and BASIC credentials can be checked on import (these are ${input.credentials.type}).`,
            { field: 'verify' },
          );
        }
        if (!verify)
          fail('invalid_request', 'verify: this gateway cannot check credentials on import.', { field: 'verify' });
        await verify(ctx.state.environment.name, input);
      }
      const { connection, created } = await connections.upsert(ctx.state.environment.name, input, 'import');
      ctx.status = created ? 201 : 200;
      ctx.body = { data: publicConnection(connection, false) };
    },
  );

  routes.get(
    '/connections',
    {
      summary: 'List connections',
      query: {
        provider_config_key: 'integration filter',
        end_user_id: 'end user filter',
        search:
          'a word start of the connection id, end-user email or display name (case-insensitive, any length); results in order of the matched text, then integration and id',
        limit: '1-1000, default 100',
        cursor: 'next_cursor of the previous page',
      },
      errors: [400],
    },
    async (ctx) => {
      const query = parseOrFail(listConnectionsQuery, ctx.query, 'invalid_request');
      const after = query.cursor === undefined ? undefined : decodePositionCursor(query.cursor, 'connections');
      const page = await connections.list(ctx.state.environment.name, query, { limit: query.limit, after });
      // The page comes as JSON bytes (read off the gateway's thread where the store can): embedded, not parsed again.
      const next = page.next ? encodePositionCursor(page.next, 'connections') : null;
      ctx.type = 'application/json';
      ctx.body = Buffer.concat([dataOpen, page.data, Buffer.from(`,"next_cursor":${JSON.stringify(next)}}`)]);
    },
  );

  // Before `/connections/:connectionId` so that "metadata" is never read as a connection id.
  for (const [method, mode, summary] of [
    ['post', 'replace', 'Replace metadata of one or several connections (spec 4.6)'],
    ['patch', 'merge', 'Merge metadata into one or several connections (spec 4.6)'],
  ] as const) {
    routes[method]('/connections/metadata', { summary, body: metadataSchema, errors: [404] }, async (ctx) => {
      const body = parseOrFail(metadataSchema, await readJson(ctx));
      const ids = Array.isArray(body.connection_id) ? body.connection_id : [body.connection_id];
      const updated = await connections.setMetadata(
        ctx.state.environment.name,
        body.provider_config_key,
        ids,
        body.metadata,
        mode,
      );
      ctx.body = {
        data: updated.map((c) => ({
          connection_id: c.connection_id,
          provider_config_key: c.provider_config_key,
          metadata: c.metadata,
        })),
      };
    });
  }

  routes.get(
    '/connections/:connectionId',
    {
      summary: 'Get a connection with its credentials',
      query: { provider_config_key: 'or the Provider-Config-Key header' },
      errors: [400, 404],
    },
    async (ctx) => {
      const env = ctx.state.environment.name;
      const connection = await connections.require(env, providerConfigKeyOf(ctx), param(ctx, 'connectionId'));
      ctx.body = { data: publicConnection(connection, true) };
    },
  );

  routes.patch(
    '/connections/:connectionId',
    {
      summary: "Patch one connection's end user (spec 4.7)",
      body: patchConnectionSchema,
      query: { provider_config_key: 'or the Provider-Config-Key header' },
      errors: [404],
    },
    async (ctx) => {
      const pck = providerConfigKeyOf(ctx);
      const body = parseOrFail(patchConnectionSchema, await readJson(ctx));
      const updated = await connections.patchEndUser(
        ctx.state.environment.name,
        pck,
        param(ctx, 'connectionId'),
        body.end_user,
      );
      ctx.body = { data: publicConnection(updated, false) };
    },
  );

  routes.delete(
    '/connections/:connectionId',
    {
      summary: 'Delete a connection',
      query: { provider_config_key: 'or the Provider-Config-Key header' },
      errors: [400, 404],
    },
    async (ctx) => {
      const pck = providerConfigKeyOf(ctx);
      const cid = param(ctx, 'connectionId');
      if (!(await connections.delete(ctx.state.environment.name, pck, cid))) {
        fail('unknown_connection', `No connection "${cid}" under integration "${pck}".`);
      }
      ctx.body = { data: { connection_id: cid, provider_config_key: pck, deleted: true } };
    },
  );

  return routes.specs;
}
