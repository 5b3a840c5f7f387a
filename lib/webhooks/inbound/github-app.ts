import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Connection } from '../../connections/index.js';
import type { WebhookRouting } from './routing.js';

const signaturePattern = /^sha256=([0-9a-f]{64})$/i;

/**
 * `github-app-route`: the code-hosting app's webhooks. Signed with the webhook secret the customer
 * chose in the app settings (spec 5.1.4): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the
 * body>`. Routed by `installation.id` to the APP connections holding that installation.
 */
export const githubAppRouting: WebhookRouting = {
  prepare(headers, integration) {
    const secret = integration.credentials?.webhook_secret;
    if (!secret) {
      return {
        ok: false,
        reason: `Integration "${integration.unique_key}" has no webhook secret: set credentials.webhook_secret to the secret chosen in the app settings.`,
      };
    }
    const header = headers['x-hub-signature-256'];
    const match = typeof header === 'string' ? signaturePattern.exec(header.trim()) : null;
    if (!match) return { ok: false, reason: 'Missing or malformed X-Hub-Signature-256 header.' };
    const presented = Buffer.from(match[1] as string, 'hex');
    const hmac = createHmac('sha256', secret);
    return {
      ok: true,
      verifier: {
        update: (chunk) => {
          hmac.update(chunk);
        },
        verify: () => timingSafeEqual(hmac.digest(), presented),
      },
    };
  },
  async route(payload, request, context) {
    const installation = (payload as { installation?: { id?: unknown } } | null)?.installation;
    const id = installation?.id;
    const installationId =
      typeof id === 'number' && Number.isSafeInteger(id)
        ? String(id)
        : typeof id === 'string' && /^\d+$/.test(id)
          ? id
          : undefined;
    const connections: Connection[] =
      installationId === undefined ? [] : await context.connectionsByInstallation(installationId);
    const uninstalled =
      installationId !== undefined &&
      request.headers['x-github-event'] === 'installation' &&
      (payload as { action?: unknown }).action === 'deleted';
    return {
      connections,
      ...(uninstalled
        ? {
            authProblem: {
              code: 'installation_deleted',
              message: `The app installation ${installationId} was deleted at the provider; the connection needs a new installation.`,
            },
          }
        : {}),
    };
  },
  forwardHeaders: [
    'x-github-event',
    'x-github-delivery',
    'x-github-hook-id',
    'x-github-hook-installation-target-id',
    'x-github-hook-installation-target-type',
  ],
};
