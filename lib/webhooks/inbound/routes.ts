import Router from '@koa/router';
import type { ConnectionService } from '../../connections/index.js';
import { fail } from '../../errors.js';
import type { GatewayState } from '../../http/state.js';
import { param } from '../../http/params.js';
import type { Logger } from '../../http/logger.js';
import type { IntegrationService } from '../../integrations/index.js';
import type { Catalog } from '../../providers/index.js';
import type { WebhookSender } from '../sender.js';
import type { InstallationIndex } from './installation-index.js';
import { parseProviderPayload } from './payload.js';
import { readRawBody } from './raw-body.js';
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
}

/**
 * `POST /webhook/:environment/:integration`: a provider's webhook (no secret key; the provider's
 * signature is the authentication). Verified, routed, queued, answered 202; delivery is async.
 */
export function createInboundWebhookRoutes(deps: InboundRoutesDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.post('/webhook/:environment/:integration', async (ctx) => {
    const env = param(ctx, 'environment');
    const key = param(ctx, 'integration');
    // One answer for an unknown environment and an unknown integration: nothing to probe.
    const integration = deps.isEnvironment(env) ? await deps.integrations.get(env, key) : undefined;
    if (!integration) fail('unknown_integration', `No integration "${key}" receives webhooks here.`);
    const script = deps.catalog.get(integration.provider)?.webhook_routing_script;
    const routing = script === undefined ? undefined : deps.routings.get(script);
    if (!routing) {
      fail('webhook_not_supported', `Provider "${integration.provider}" has no webhook routing${script ? ` ("${script}" is not registered)` : ''}, so its webhooks cannot be verified.`);
    }

    const request: InboundRequest = { rawBody: await readRawBody(ctx, deps.bodyLimit), headers: ctx.req.headers };
    const verified = routing.verify(request, integration);
    if (!verified.ok) {
      deps.logger.warn('provider webhook rejected', { environment: env, integration: key, reason: verified.reason });
      fail('invalid_webhook_signature', verified.reason);
    }
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
      sent.push(await deps.sender.send(env, {
        type: 'forward', connection_id: connectionId, provider_config_key: key, provider: integration.provider,
        payload, provider_headers: providerHeaders,
      }));
    }
    ctx.status = 202;
    ctx.body = { data: { accepted: true, matched_connections: routed.connections.length, delivery_ids: sent.map((s) => s.delivery_id) } };
  });
  return router;
}
