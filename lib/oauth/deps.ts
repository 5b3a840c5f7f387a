import type { ConnectSessionStore } from '../connect/index.js';
import type { ConnectionService } from '../connections/index.js';
import type { Cipher } from '../crypto/index.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from '../http/logger.js';
import type { IntegrationService } from '../integrations/index.js';
import type { Catalog } from '../providers/index.js';
import type { FlowStore } from './flow.js';
import type { HookRegistry } from './hooks.js';

/** Everything the authorization routes need, built by the composition root. */
export interface OAuthDeps {
  /** `{baseUrl}/oauth/callback` (spec 5.1.1): the redirect URI registered at the provider. */
  callbackUrl: string;
  /** `{baseUrl}/oauth/connect`: the connect link; `/{integration}` starts one integration. */
  connectUrl: string;
  /** `{baseUrl}/oauth/app-setup`: the code-hosting app's setup URL (spec 2.5). */
  setupUrl: string;
  catalog: Catalog;
  integrations: IntegrationService;
  connections: ConnectionService;
  events: EventBus;
  logger: Logger;
  cipher: Cipher;
  sessions: ConnectSessionStore;
  flows: FlowStore;
  hooks: HookRegistry;
  /** Outgoing calls to providers (token endpoints, verification endpoints). */
  fetch: typeof fetch;
}
