import { fail } from '../../errors.js';
import { readJson } from '../../http/body.js';
import { defineRoutes, type RouteSpec } from '../../http/route-spec.js';
import { parseOrFail } from '../../http/validate.js';
import { legacyFormatMessage } from '../registry/directory.js';
import type { ScriptEntry } from '../registry/registry.js';
import type { RoutesApi } from './api.js';
import { deploySchema, legacyDeployKeys, logsQuery } from './schema.js';

/** Deploys carry compiled bundles: a larger body than other routes. */
const deployBodyLimit = 64 * 1024 * 1024;

export function describeScript(e: ScriptEntry) {
  const m = e.manifest;
  return {
    name: e.name,
    integration: e.integration,
    type: m.type,
    origin: e.origin,
    description: m.description,
    version: m.version,
    ...(m.type === 'sync'
      ? {
          frequency: m.frequency,
          sync_type: m.syncType,
          auto_start: m.autoStart,
          detect_deletes: m.detectDeletes,
          models: m.models,
        }
      : {}),
    ...(m.type === 'action' ? { input: m.input, output: m.output } : {}),
    ...(m.type === 'on-event' ? { event: m.event } : {}),
    deployed_at: e.deployed_at,
    // sha256 of a deployed bundle (null for registered scripts): the CLI tells changed from unchanged by it.
    hash: e.hash,
  };
}

/** `GET /scripts`, `POST /scripts/deploy` (the CLI) and `GET /logs`. */
export function createScriptAdminRoutes(api: RoutesApi): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'scripts' });

  routes.get(
    '/scripts',
    {
      summary: 'Scripts enabled in this environment (registered and deployed)',
      query: { integration: 'filter by integration unique key' },
    },
    async (ctx) => {
      const integration = typeof ctx.query.integration === 'string' ? ctx.query.integration : undefined;
      ctx.body = { data: (await api.registry.list(ctx.state.environment.name, integration)).map(describeScript) };
    },
  );

  routes.post(
    '/scripts/deploy',
    {
      summary: "Deploy compiled script bundles (replaces the environment's deployed scripts); the CLI uses it",
      auth: 'deploy_key',
      body: deploySchema,
    },
    async (ctx) => {
      const { environment, keyRole } = ctx.state;
      if (environment.deploysDisabled)
        fail('deploys_disabled', `Deploys to environment "${environment.name}" are switched off.`);
      if (environment.deployKey && keyRole !== 'deploy') {
        fail(
          'forbidden',
          `Environment "${environment.name}" takes deploys with its deploy key only; its secret key does not deploy.`,
        );
      }
      const raw = await readJson(ctx, deployBodyLimit);
      const legacy = raw !== null && typeof raw === 'object' ? legacyDeployKeys.filter((k) => k in raw) : [];
      if (legacy.length > 0)
        fail('unsupported_script_format', legacyFormatMessage(`this deploy (${legacy.join(', ')})`), {
          field: legacy[0],
        });
      const body = parseOrFail(deploySchema, raw);
      const seen = new Set<string>();
      body.scripts.forEach((s, i) => {
        const key = `${s.integration}\u001f${s.name}`;
        if (seen.has(key))
          fail('invalid_body', `scripts[${i}]: "${s.name}" appears twice for integration "${s.integration}".`, {
            field: `scripts[${i}].name`,
          });
        seen.add(key);
      });
      const env = ctx.state.environment.name;
      const result = await api.registry.deploy(env, body.scripts);
      if (!result.ok) {
        const first = result.problems[0];
        fail('invalid_script', `${first?.integration}/${first?.name}: ${first?.message}`, {
          problems: result.problems,
        });
      }
      await api.reschedule(env, result.previous);
      ctx.body = { data: { deployed: result.current.map(describeScript) } };
    },
  );

  routes.get(
    '/logs',
    {
      summary: 'Stored script logs, newest first',
      query: {
        connection_id: 'filter',
        script: 'filter by script name',
        run_id: 'filter by run',
        cursor: 'next_cursor of the previous page',
        limit: '1-1000, default 100',
      },
      errors: [400],
    },
    async (ctx) => {
      const query = parseOrFail(logsQuery, ctx.query, 'invalid_request');
      const page = await api.logs.query(
        ctx.state.environment.name,
        { connectionId: query.connection_id, script: query.script, runId: query.run_id },
        { cursor: query.cursor, limit: query.limit },
      );
      if (!page.ok)
        fail('invalid_cursor', 'cursor: not a cursor of these logs (or its run has been pruned).', { field: 'cursor' });
      ctx.body = { data: page.data, next_cursor: page.next_cursor };
    },
  );

  return routes.specs;
}
