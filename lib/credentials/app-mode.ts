import type { AppCredentials } from '../connections/index.js';
import { fail } from '../errors.js';
import type { AppJwtSigner } from './app-jwt.js';
import { fillConnectionTemplate } from '../providers/index.js';
import { fingerprint } from './fingerprint.js';
import type { CredentialTarget } from './resolver.js';
import { callTokenEndpoint } from '../providers/protocol/index.js';
import type { TokenMode } from './token-mode.js';

export interface AppModeDeps {
  fetch: typeof fetch;
  now: () => number;
  signer: AppJwtSigner;
  bufferMs: number;
  timeoutMs: number;
}

/** Installation tokens live one hour; used when an answer leaves `expires_at` out. */
const assumedLifetimeMs = 60 * 60 * 1000;

function appOf(target: CredentialTarget) {
  const c = target.integration.credentials;
  if (c?.type === 'APP') return c;
  return fail(
    'integration_credentials_missing',
    `Integration "${target.integration.unique_key}" has no app ID and private key, which minting installation tokens needs. Set them with PATCH /integrations/${target.integration.unique_key}.`,
  );
}

const installationUrl = (target: CredentialTarget, installationId: string) =>
  `${fillConnectionTemplate(target.provider.proxy.base_url, target.connection, target.provider).replace(/\/+$/, '')}/app/installations/${encodeURIComponent(installationId)}/access_tokens`;

/**
 * APP (the code-hosting app, spec 5.1.4): the app's RS256 JWT is exchanged for an installation
 * token, and API calls carry only that token: they act as the installation, never as the app.
 */
export function createAppMode(deps: AppModeDeps): TokenMode<AppCredentials> {
  return {
    type: 'APP',
    problemCode: 'installation_token_refused',
    bufferMs: deps.bufferMs,
    token: (c) => c.access_token,
    expiresAt: (c) => c.expires_at,
    fingerprint(target, c) {
      const app = target.integration.credentials;
      const parts = app?.type === 'APP' ? [app.app_id, app.private_key] : [];
      return fingerprint(
        'APP',
        target.provider.proxy.base_url,
        JSON.stringify(target.connection.connection_config),
        c.installation_id,
        ...parts,
      );
    },
    async obtain(target, c) {
      const app = appOf(target);
      const url = installationUrl(target, c.installation_id);
      const jwt = await deps.signer.sign(app.app_id, app.private_key);
      const outcome = await callTokenEndpoint(deps.fetch, {
        url,
        headers: { authorization: `Bearer ${jwt}`, accept: 'application/vnd.github+json' },
        timeoutMs: deps.timeoutMs,
      });
      if (!outcome.ok) return outcome;
      const { body } = outcome;
      if (typeof body.token !== 'string' || body.token === '') {
        return {
          ok: false,
          reason: 'unavailable',
          status: outcome.status,
          detail: 'the provider answered without an installation token',
        };
      }
      const expires = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : Number.NaN;
      const expiresAt = new Date(Number.isFinite(expires) ? expires : deps.now() + assumedLifetimeMs).toISOString();
      return { ok: true, credentials: { ...c, access_token: body.token, expires_at: expiresAt } };
    },
    refusalMessage(target, outcome) {
      const app = target.integration.credentials;
      const appId = app?.type === 'APP' ? app.app_id : '?';
      const why =
        outcome.status === 404
          ? `installation ${String((target.connection.credentials as AppCredentials).installation_id)} was not found: the app may have been uninstalled`
          : outcome.status === 401
            ? `the app's JWT was refused: check the app ID (${appId}) and private key of integration "${target.integration.unique_key}"`
            : `${outcome.error}${outcome.description ? `: ${outcome.description}` : ''}`;
      return `The provider refused an installation token for connection "${target.connection.connection_id}" (${why}). The connection has not been deleted.`;
    },
  };
}
