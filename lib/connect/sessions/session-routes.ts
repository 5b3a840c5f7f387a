import type { ConnectionService } from '../../connections/index.js';
import { readJson } from '../../http/body.js';
import { defineRoutes, type RouteSpec } from '../../http/route-spec.js';
import { parseOrFail } from '../../http/validate.js';
import type { IntegrationService } from '../../integrations/index.js';
import { createSessionSchema } from './session.js';
import type { ConnectSessionStore } from './session-store.js';

export interface ConnectSessionRoutesDeps {
  sessions: ConnectSessionStore;
  integrations: IntegrationService;
  connections: ConnectionService;
  /** `{baseUrl}/oauth/connect`: the connect link is this plus the token. */
  connectUrl: string;
}

/** `POST /connect/sessions` (secret key): a short-lived, single-use token for one end user. */
export function createConnectSessionRoutes(deps: ConnectSessionRoutesDeps): RouteSpec[] {
  const routes = defineRoutes({ auth: 'secret_key', tag: 'connect' });
  routes.post(
    '/connect/sessions',
    {
      summary: 'Create a connect session for one end user: a short-lived single-use token and the connect link',
      body: createSessionSchema,
      success: 201,
      errors: [404],
    },
    async (ctx) => {
      const env = ctx.state.environment.name;
      const input = parseOrFail(createSessionSchema, await readJson(ctx));
      // Refuse names that do not exist now rather than failing in the end user's browser later.
      for (const key of input.allowed_integrations ?? []) await deps.integrations.require(env, key);
      for (const key of Object.keys(input.integrations_config_defaults ?? {}))
        await deps.integrations.require(env, key);
      const only = input.allowed_integrations?.[0];
      if (input.connection_id !== undefined && only !== undefined)
        await deps.connections.require(env, only, input.connection_id);
      const { token, session } = await deps.sessions.create(env, input);
      ctx.status = 201;
      ctx.body = {
        data: {
          token,
          connect_link: `${deps.connectUrl}?connect_session_token=${encodeURIComponent(token)}`,
          expires_at: session.expires_at,
          end_user: session.end_user,
          allowed_integrations: session.allowed_integrations,
          allowed_origins: session.allowed_origins,
          ...(session.tenant ? { tenant: session.tenant } : {}),
        },
      };
    },
  );
  return routes.specs;
}
