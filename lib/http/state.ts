import type { Environment, KeyRole } from '../environments/index.js';

/** What middleware hands to the middleware after it, on `ctx.state`. */
export interface GatewayState {
  requestId: string;
  /** Set by the secret-key check; present on every authenticated route. */
  environment: Environment;
  /** Which of the environment's keys the caller sent: `deploy` reaches `POST /scripts/deploy` only. */
  keyRole?: KeyRole;
  [key: string]: unknown;
}
