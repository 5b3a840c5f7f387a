import type { ConnectionService } from '../connections/index.js';
import type { Cipher } from '../crypto/index.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from '../http/logger.js';
import type { RouteSpec } from '../http/route-spec.js';
import type { IntegrationService } from '../integrations/index.js';
import type { Catalog } from '../providers/index.js';
import type { Storage } from '../storage/index.js';
import { createCallbackRoutes } from './callback-routes.js';
import type { FlowDeps } from './deps.js';
import { createFlowStore } from './flow-store.js';
import { createKeySets } from './flows/id-token.js';
import { createConnectRoutes } from './link-routes.js';
import type { Branding } from './pages/look.js';
import type { HookRegistry } from './post-connection.js';
import { createConnectSessionRoutes } from './sessions/session-routes.js';
import { createConnectSessionStore } from './sessions/session-store.js';

export interface ConnectDeps {
  storage: Storage;
  /** The gateway's public address, mount prefix included. */
  baseUrl: string;
  catalog: Catalog;
  integrations: IntegrationService;
  connections: ConnectionService;
  events: EventBus;
  logger: Logger;
  cipher: Cipher;
  /** The post-connection hooks (catalog `post_connection_script` names), ready to call. */
  hooks: HookRegistry;
  /** Outgoing calls to providers (token endpoints, key sets, verification endpoints). */
  fetch: typeof fetch;
  sessionTtlMs?: number | undefined;
  /** The connect pages' default brand (a session's `branding` overrides each field). */
  branding?: Branding | undefined;
}

export interface Connect {
  /**
   * `POST /connect/sessions` (secret key), then what the end user's browser opens (public): the
   * connect link, the form, the callback, the app setup URL.
   */
  routes: RouteSpec[];
}

/** Connecting end users: connect sessions and every authorization flow, bound to the browser that started it. */
export function createConnect(deps: ConnectDeps): Connect {
  const sessions = createConnectSessionStore(deps.storage, deps.sessionTtlMs);
  const connectUrl = `${deps.baseUrl}/oauth/connect`;
  const { catalog, integrations, connections, events, logger, cipher, hooks, fetch } = deps;
  const flowDeps: FlowDeps = {
    catalog,
    integrations,
    connections,
    events,
    logger,
    cipher,
    hooks,
    fetch,
    baseUrl: deps.baseUrl,
    defaultBranding: deps.branding ?? null,
    callbackUrl: `${deps.baseUrl}/oauth/callback`,
    setupUrl: `${deps.baseUrl}/oauth/app-setup`,
    connectUrl,
    cookiePath: `${new URL(deps.baseUrl).pathname.replace(/\/+$/, '')}/oauth`,
    secureCookies: deps.baseUrl.startsWith('https:'),
    sessions,
    flows: createFlowStore(deps.storage),
    coordinator: deps.storage.coordinator,
    keySets: createKeySets(),
  };
  return {
    routes: [
      ...createConnectSessionRoutes({ sessions, integrations, connections, connectUrl }),
      ...createConnectRoutes(flowDeps),
      ...createCallbackRoutes(flowDeps),
    ],
  };
}
