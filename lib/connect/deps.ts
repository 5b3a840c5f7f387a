import type { ConnectSessionStore } from './sessions/session-store.js';
import type { ConnectionService } from '../connections/index.js';
import type { Coordinator } from '../coordination/index.js';
import type { Cipher } from '../crypto/index.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from '../http/logger.js';
import type { IntegrationService } from '../integrations/index.js';
import type { Catalog } from '../providers/index.js';
import type { FlowStore } from './flow-store.js';
import type { KeySets } from './flows/id-token.js';
import type { HookRegistry } from './post-connection.js';

/** Everything the authorization routes need, built by the composition root. */
export interface FlowDeps {
  /** `{baseUrl}/oauth/callback` (spec 5.1.1): the redirect URI registered at the provider. */
  callbackUrl: string;
  /** `{baseUrl}/oauth/connect`: the connect link; `/{integration}` starts one integration. */
  connectUrl: string;
  /** `{baseUrl}/oauth/app-setup`: the code-hosting app's setup URL (spec 2.5). */
  setupUrl: string;
  /** Path of the browser-binding cookies: the gateway's `/oauth` routes only. */
  cookiePath: string;
  /** `Secure` on the cookies when the gateway is served over https. */
  secureCookies: boolean;
  catalog: Catalog;
  integrations: IntegrationService;
  connections: ConnectionService;
  events: EventBus;
  logger: Logger;
  cipher: Cipher;
  sessions: ConnectSessionStore;
  flows: FlowStore;
  hooks: HookRegistry;
  /** Report-once markers for failed attempts, shared by every gateway process. */
  coordinator: Coordinator;
  /** Issuers' published signing keys (admin consent ID tokens). */
  keySets: KeySets;
  /** Outgoing calls to providers (token endpoints, verification endpoints). */
  fetch: typeof fetch;
}
