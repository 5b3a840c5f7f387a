import type { ConnectionService } from '../../connections/index.js';
import { GatewayError } from '../../errors.js';
import { defineRoutes, type RouteSpec } from '../../http/route-spec.js';
import { param } from '../../http/params.js';
import type { Logger } from '../../http/logger.js';
import type { IntegrationService } from '../../integrations/index.js';
import type { Catalog } from '../../providers/index.js';
import type { WebhookSender } from '../sender.js';
import type { InstallationIndex } from './installation-index.js';
import { parseProviderPayload } from './payload.js';
import type { ByteBudget } from './byte-budget.js';
import { readVerifiedBody } from './verified-body.js';
import type { InboundRequest, WebhookRoutingRegistry } from './routing.js';

export interface InboundRoutesDeps {
  isEnvironment(env: string): boolean;
  integrations: IntegrationService;
  connections: ConnectionService;
  catalog: Catalog;
  routings: WebhookRoutingRegistry;
  installations: InstallationIndex;
  sender: WebhookSender;
  logger: Logger;
  bodyLimit: number;
  /** Bytes of webhook bodies held at once by this process. */
  budget: ByteBudget;
  readTimeoutMs: number;
}

/**
 * `POST /webhook/:environment/:integration`: a provider's webhook (no secret key; the provider's
 * signature is the authentication). Refused before the body is read unless there is a secret
 * to check with and a well-formed signature header; the body is hashed as it streams in, under
 * a size limit, a process-wide byte budget and a read deadline. Verified, routed, queued,
 * answered 202; delivery is async.
 */
export function createInboundWebhookRoutes(deps: InboundRoutesDeps): RouteSpec[] {
  const routes = defineRoutes({ auth: 'public', tag: 'webhooks' });
  routes.post(
    '/webhook/:environment/:integration',
    {
      summary: "A provider's webhook: signature verified, routed to connections, forwarded to the customer; 202",
      success: 202,
      errors: [400, 401, 408, 413],
    },
    async (ctx) => {
      const env = param(ctx, 'environment');
      const key = param(ctx, 'integration');
      // One answer for every refusal (unknown environment or integration, no routing, no secret,
      // a missing, malformed or wrong signature): nothing to probe. The reason goes to the log.
      const refuse = (reason: string): never => {
        deps.logger.warn('provider webhook rejected', {
          request_id: ctx.state.requestId,
          environment: env,
          integration: key,
          reason,
        });
        ctx.set('Connection', 'close');
        throw new GatewayError('invalid_webhook_signature', 'This webhook could not be verified.');
      };
      const integration = deps.isEnvironment(env) ? await deps.integrations.get(env, key) : undefined;
      if (!integration) return refuse('unknown environment or integration');
      const script = deps.catalog.get(integration.provider)?.webhook_routing_script;
      const routing = script === undefined ? undefined : deps.routings.get(script);
      if (!routing)
        return refuse(
          `provider "${integration.provider}" has no webhook routing${script ? ` ("${script}" is not registered)` : ''}`,
        );
      const prepared = routing.prepare(ctx.req.headers, integration);
      if (!prepared.ok) return refuse(prepared.reason);

      const read = await readVerifiedBody(ctx, prepared.verifier, {
        limit: deps.bodyLimit,
        budget: deps.budget,
        timeoutMs: deps.readTimeoutMs,
      });
      try {
        if (!read.verified) return refuse('the signature does not match the body');
        const request: InboundRequest = { rawBody: read.body, headers: ctx.req.headers };
        const payload = parseProviderPayload(request.rawBody, ctx.get('content-type'));
        const routed = await routing.route(payload, request, {
          environment: env,
          integration,
          connectionsByInstallation: (id) => deps.installations.find(env, key, id),
        });
        if (routed.authProblem) {
          for (const connection of routed.connections) {
            await deps.connections.markAuthProblem(env, key, connection.connection_id, routed.authProblem);
          }
        }
        const providerHeaders: Record<string, string> = {};
        for (const name of routing.forwardHeaders) {
          const value = ctx.get(name);
          if (value) providerHeaders[name] = value;
        }
        const targets = routed.connections.length > 0 ? routed.connections.map((c) => c.connection_id) : [null];
        const sent = [];
        for (const connectionId of targets) {
          sent.push(
            await deps.sender.send(env, {
              type: 'forward',
              connection_id: connectionId,
              provider_config_key: key,
              provider: integration.provider,
              payload,
              provider_headers: providerHeaders,
            }),
          );
        }
        ctx.status = 202;
        ctx.body = {
          data: {
            accepted: true,
            matched_connections: routed.connections.length,
            delivery_ids: sent.map((s) => s.delivery_id),
          },
        };
      } finally {
        read.release();
      }
    },
  );
  return routes.specs;
}
