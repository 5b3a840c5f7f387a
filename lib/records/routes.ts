import type { Context } from 'koa';
import { fail } from '../errors.js';
import { defineRoutes, type RouteSpec } from '../http/route-spec.js';
import { parseRecordsQuery } from './query.js';
import type { RecordStore } from './store.js';

export interface RecordRoutesDeps {
  records: RecordStore;
  /** Throws the gateway's 404 when the connection does not exist in this environment. */
  requireConnection(environment: string, providerConfigKey: string, connectionId: string): Promise<unknown>;
}

function header(ctx: Context, name: string, code: 'missing_connection_id' | 'missing_provider_config_key'): string {
  const value = ctx.get(name).trim();
  if (!value) fail(code, `The ${name} header is required.`, { field: name });
  return value;
}

/** GET /records (spec 4.3): synced records of one model of one connection, by cursor. */
export function createRecordRoutes(deps: RecordRoutesDeps): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'records' });

  routes.get(
    '/records',
    {
      summary: 'Synced records of one model of one connection, by modification time (spec 4.3)',
      headers: ['Connection-Id', 'Provider-Config-Key'],
      query: {
        model: 'required: the data model',
        variant: 'model variant, default base',
        cursor: "a record's _service_metadata.cursor or next_cursor",
        limit: '1-1000, default 100',
        filter: 'added, updated, deleted; comma-separated for the union',
        modified_after: 'ISO 8601 date-time: only records modified after it',
        delta: 'deprecated alias of modified_after (answered with a Deprecation header)',
        ids: 'ids=a,b or repeated (ids=a&ids=b), at most 100; a comma inside an id is sent encoded (%2C)',
      },
      errors: [400, 404],
    },
    async (ctx) => {
      const query = parseRecordsQuery(ctx.query, ctx.querystring);
      const providerConfigKey = header(ctx, 'Provider-Config-Key', 'missing_provider_config_key');
      const connectionId = header(ctx, 'Connection-Id', 'missing_connection_id');
      const environment = ctx.state.environment.name;
      await deps.requireConnection(environment, providerConfigKey, connectionId);

      const result = await deps.records.list(
        { environment, providerConfigKey, connectionId, model: query.model, variant: query.variant },
        {
          cursor: query.cursor,
          limit: query.limit,
          filter: query.filter,
          modifiedAfter: query.modifiedAfter,
          ids: query.ids,
        },
      );
      if (!result.ok) {
        fail(
          'invalid_cursor',
          result.reason === 'foreign_cursor'
            ? 'cursor: belongs to another model, variant, connection or environment.'
            : 'cursor: not a cursor this endpoint issued.',
          { field: 'cursor' },
        );
      }
      if (query.usedDelta) {
        ctx.set('Deprecation', 'true');
        ctx.set('Warning', '299 - "The delta parameter is deprecated; use modified_after"');
      }
      ctx.body = result.page;
    },
  );

  return routes.specs;
}
