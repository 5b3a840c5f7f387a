import type { ConnectionService } from '../connections/index.js';
import type { CredentialResolver } from '../credentials/index.js';
import type { Logger } from '../http/logger.js';
import type { IntegrationService } from '../integrations/index.js';
import type { Catalog } from '../providers/index.js';
import { createProxyApi } from './api.js';
import { createExchange } from './exchange.js';
import { resolveProxyOptions, type ProxyOptions } from './options.js';
import { createPrepare } from './prepare.js';
import { createBaseResolver } from './provider-base.js';
import { createProxyRoutes } from './routes.js';
import { createUpstream } from './upstream.js';

export type { ProxyOptions } from './options.js';
export type { ProxyRequest, ProxyResponse } from './api.js';
export { checkProviderPath, checkProviderQuery } from './safe-target.js';
export {
  proxyChannels,
  type ProxyCallEvent,
  type ProxyResponseEvent,
  type ProxyRetryEvent,
  type ProxyErrorEvent,
} from './diagnostics.js';

export interface ProxyDeps {
  catalog: Catalog;
  integrations: IntegrationService;
  connections: ConnectionService;
  resolver: CredentialResolver;
  logger: Logger;
  options?: ProxyOptions | undefined;
}

/**
 * The forwarding pipeline, composed: resolve (prepare) → inject and forward with retries
 * (exchange, over upstream) → decompress | paginate (routes, api). One keep-alive agent per
 * protocol serves both the HTTP route and the programmatic API.
 */
export function createProxy(deps: ProxyDeps) {
  const options = resolveProxyOptions(deps.options);
  const upstream = createUpstream(options);
  const prepare = createPrepare({
    catalog: deps.catalog,
    integrations: deps.integrations,
    connections: deps.connections,
    baseOf: createBaseResolver(),
    maxPages: options.maxPages,
    maxPaginatedBytes: options.maxPaginatedBytes,
    maxDecodedBytes: options.maxDecodedBytes,
    maxDecodedBytesByIntegration: options.maxDecodedBytesByIntegration,
  });
  const exchange = createExchange({ upstream, resolver: deps.resolver, logger: deps.logger, options });
  const route = createProxyRoutes({ prepare, exchange, options, logger: deps.logger });
  return {
    /** The `/proxy/{provider_path}` route (behind the secret key), and the same as a router. */
    specs: route.specs,
    routes: route.router,
    /** The hot path: `handles(method, url)` says whether `forward(ctx)` takes an authenticated call. */
    handles: route.handles,
    forward: route.forward,
    /** Calls a provider from code, e.g. `request({ environment, providerConfigKey, connectionId, path })`. */
    request: createProxyApi({ prepare, exchange, options }),
    /** Sockets to providers, in use and idle. */
    sockets: upstream.sockets,
    /** Budgets other page walkers follow too (the script runtime's `paginate`): bytes of all pages of one walk. */
    limits: Object.freeze({ maxPaginatedBytes: options.maxPaginatedBytes, maxDecodedBytes: options.maxDecodedBytes }),
    async close() {
      upstream.close();
    },
  };
}

export type Proxy = ReturnType<typeof createProxy>;
