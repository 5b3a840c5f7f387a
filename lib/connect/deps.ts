import type { Coordinator } from '../coordination/index.js';
import type { ConnectDeps } from './feature.js';
import type { Branding } from './pages/look.js';
import type { FlowStore } from './flow-store.js';
import type { KeySets } from './flows/id-token.js';
import type { ConnectSessionStore } from './sessions/session-store.js';

/** Everything the authorization routes need: the feature's dependencies, plus what it builds from them. */
export interface FlowDeps extends Pick<
  ConnectDeps,
  'catalog' | 'integrations' | 'connections' | 'events' | 'logger' | 'cipher' | 'hooks' | 'fetch'
> {
  /** The gateway's public address, mount prefix included (the pages load provider logos from it). */
  baseUrl: string;
  /** The gateway's default brand for the pages (`connectBranding` option). */
  defaultBranding: Branding | null;
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
  sessions: ConnectSessionStore;
  flows: FlowStore;
  /** Report-once markers for failed attempts, shared by every gateway process. */
  coordinator: Coordinator;
  /** Issuers' published signing keys (admin consent ID tokens). */
  keySets: KeySets;
}
