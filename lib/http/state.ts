import type { Environment } from '../environments/index.js';

/** What middleware hands to the middleware after it, on `ctx.state`. */
export interface GatewayState {
  requestId: string;
  /** Set by the secret-key check; present on every authenticated route. */
  environment: Environment;
  [key: string]: unknown;
}
