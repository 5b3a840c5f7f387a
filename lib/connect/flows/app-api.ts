import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { GatewayError } from '../../errors.js';
import type { IntegrationCredentials } from '../../integrations/index.js';
import type { Provider } from '../../providers/index.js';
import { fillTemplate } from '../connection-config.js';

export type AppCredentials = Extract<IntegrationCredentials, { type: 'APP' }>;

const timeoutMs = 15_000;

/** True when the app can run the user authorization (spec 5.1.4) that proves who may use an installation. */
export const asksForUserAuthorization = (
  provider: Provider,
  app: AppCredentials,
): app is AppCredentials & { client_id: string; client_secret: string } =>
  Boolean(app.client_id && app.client_secret && provider.user_authorization);

/** The app's user authorization page (no scopes: an app's permissions are set on the app). */
export function appUserAuthorizationUrl(
  provider: Provider,
  clientId: string,
  state: string,
  redirectUri: string,
): string {
  const url = new URL(provider.user_authorization?.authorization_url ?? '');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  return url.toString();
}

/** A short-lived JWT signed with the app's private key: the app authenticating as itself. */
async function appJwt(app: AppCredentials): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return (
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(app.app_id)
      // Back-dated a minute against clock drift; the provider caps the lifetime at ten minutes.
      .setIssuedAt(now - 60)
      .setExpirationTime(now + 9 * 60)
      .sign(createPrivateKey(app.private_key))
  );
}

async function apiGet(
  fetchFn: typeof fetch,
  provider: Provider,
  config: Record<string, string>,
  path: string,
  authorization: string,
) {
  const base = fillTemplate(provider.proxy.base_url, config).replace(/\/+$/, '');
  try {
    const response = await fetchFn(base + path, {
      headers: { accept: 'application/json', ...provider.proxy.headers, authorization },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body: unknown = await response.json().catch(() => undefined);
    return { status: response.status, body };
  } catch {
    throw new GatewayError(
      'upstream_unreachable',
      `The provider's API could not be reached to verify the installation; please try again.`,
    );
  }
}

/**
 * Only with the integration's explicit opt-out (`insecure_trust_setup_url_installation_id`):
 * the setup redirect's installation id is only checked to be an installation of this app.
 * The provider warns that it can be spoofed; ids are sequential.
 */
export async function verifyAppInstallation(
  fetchFn: typeof fetch,
  provider: Provider,
  app: AppCredentials,
  config: Record<string, string>,
  installationId: string,
): Promise<void> {
  const { status } = await apiGet(
    fetchFn,
    provider,
    config,
    `/app/installations/${installationId}`,
    `Bearer ${await appJwt(app)}`,
  );
  if (status === 200) return;
  if (status === 401) {
    throw new GatewayError(
      'installation_not_verified',
      "The provider refused the app's credentials (app_id or private_key); the customer must update the integration.",
    );
  }
  throw new GatewayError(
    'installation_not_verified',
    `Installation ${installationId} is not an installation of this app (the provider answered ${status}).`,
  );
}

const perPage = 100;
// 10,000 installations: far beyond one person's; a bound on a provider that never stops paging.
const maxPages = 100;

/**
 * With user authorization: the installation must be one the authorizing user can access.
 * Every page of the user's installations is read (by page number, never by a URL the answer
 * names, so the user's token goes nowhere else) until the installation is found or the list ends.
 */
export async function verifyUserInstallation(
  fetchFn: typeof fetch,
  provider: Provider,
  config: Record<string, string>,
  userToken: string,
  installationId: string,
): Promise<void> {
  for (let page = 1; page <= maxPages; page++) {
    const { status, body } = await apiGet(
      fetchFn,
      provider,
      config,
      `/user/installations?per_page=${perPage}&page=${page}`,
      `Bearer ${userToken}`,
    );
    const installations = (body as { installations?: { id?: unknown }[] } | undefined)?.installations;
    if (status !== 200 || !Array.isArray(installations)) {
      throw new GatewayError(
        'installation_not_verified',
        `The installations of the authorizing user could not be read (the provider answered ${status}).`,
      );
    }
    if (installations.some((i) => String(i.id) === installationId)) return;
    const total = (body as { total_count?: unknown }).total_count;
    if (installations.length < perPage || (typeof total === 'number' && page * perPage >= total)) break;
  }
  throw new GatewayError(
    'installation_not_verified',
    `The user who authorized cannot access installation ${installationId}.`,
  );
}
