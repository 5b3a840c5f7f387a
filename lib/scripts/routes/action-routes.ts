import { errorStatus, fail, type ErrorCode } from '../../errors.js';
import { readJson } from '../../http/body.js';
import { param } from '../../http/params.js';
import { defineRoutes, type RouteSpec } from '../../http/route-spec.js';
import { parseOrFail } from '../../http/validate.js';
import type { RoutesApi } from './api.js';
import { triggerActionSchema } from './schema.js';

const asCode = (code: string): ErrorCode => (Object.hasOwn(errorStatus, code) ? (code as ErrorCode) : 'action_failed');

/** `POST /action/trigger` (sync, or async with `X-Async: true`) and `GET /action/:id`. */
export function createActionRoutes(api: RoutesApi): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'scripts' });

  routes.post(
    '/action/trigger',
    {
      summary: 'Run an action: answers its output; with X-Async: true, 202 with an id and a status URL',
      body: triggerActionSchema,
      headers: ['Provider-Config-Key', 'Connection-Id'],
      errors: [404, 424, 502, 504],
    },
    async (ctx) => {
      const connectionId =
        ctx.get('connection-id') || fail('missing_connection_id', 'Name the connection: Connection-Id header.');
      const providerConfigKey =
        ctx.get('provider-config-key') ||
        fail('missing_provider_config_key', 'Name the integration: Provider-Config-Key header.');
      const body = parseOrFail(triggerActionSchema, await readJson(ctx));
      const call = {
        providerConfigKey,
        connectionId,
        action: body.action_name,
        input: body.input,
        logLevel: body.log_level,
      };
      const env = ctx.state.environment.name;
      if (/^(true|1)$/i.test(ctx.get('x-async'))) {
        const queued = await api.actions.enqueue(env, call);
        ctx.status = 202;
        ctx.set('Location', queued.status_url);
        ctx.body = queued;
        return;
      }
      const outcome = await api.actions.run(env, call);
      ctx.set('X-Run-Id', outcome.runId);
      if (!outcome.ok) {
        const { code, message, ...details } = outcome.error;
        fail(asCode(code), message, { ...details, run_id: outcome.runId });
      }
      // The output is sent as the worker serialized (and measured) it.
      ctx.type = 'application/json';
      ctx.body = outcome.output.json;
    },
  );

  routes.get(
    '/action/:id',
    { summary: 'Status and result of an asynchronous action call', errors: [404] },
    async (ctx) => {
      const id = param(ctx, 'id');
      const run = await api.actions.get(ctx.state.environment.name, id);
      if (!run) fail('unknown_action_run', `No action call "${id}" (results are kept 7 days).`);
      const { output_json: output, environment: _env, ...rest } = run;
      ctx.type = 'application/json';
      ctx.body = `{"data":${JSON.stringify(rest).slice(0, -1)},"output":${output ?? 'null'}}}`;
    },
  );

  return routes.specs;
}
