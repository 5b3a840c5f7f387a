import { githubAppRouting } from './github-app.js';
import type { WebhookRouting } from './routing.js';

/**
 * The webhook routings built into the gateway, by the name a catalog entry gives in
 * `webhook_routing_script`. A later feature registers user scripts beside them.
 */
export function builtInWebhookRoutings(): Map<string, WebhookRouting> {
  return new Map([['github-app-route', githubAppRouting]]);
}
