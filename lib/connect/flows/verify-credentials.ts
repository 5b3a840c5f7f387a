import type { ConnectionCredentials } from '../../connections/index.js';
import { placeCredentials } from '../../credentials/index.js';
import { GatewayError } from '../../errors.js';
import type { Provider } from '../../providers/index.js';
import { fillTemplate } from '../connection-config.js';

const timeoutMs = 15_000;

type TypedCredentials = Extract<ConnectionCredentials, { type: 'API_KEY' | 'BASIC' }>;

/**
 * Proves an API key or basic credentials work with one authenticated GET of the catalog's
 * `proxy.verification_endpoint`, placed exactly as the proxy will place them. Without a
 * verification endpoint the credentials are accepted as typed.
 */
export async function verifyCredentials(
  fetchFn: typeof fetch,
  provider: Provider,
  config: Record<string, string>,
  credentials: TypedCredentials,
): Promise<void> {
  const endpoint = provider.proxy.verification_endpoint;
  if (!endpoint) return;
  const material = placeCredentials(
    provider,
    credentials.type === 'API_KEY'
      ? { apiKey: credentials.apiKey }
      : {
          username: credentials.username,
          password: credentials.password,
          basic: Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64'),
        },
  );
  const url = new URL(fillTemplate(provider.proxy.base_url, config).replace(/\/+$/, '') + endpoint);
  for (const [name, value] of Object.entries({ ...provider.proxy.query, ...material.query }))
    url.searchParams.set(name, value);
  let status: number;
  try {
    const response = await fetchFn(url, {
      headers: { accept: 'application/json', ...provider.proxy.headers, ...material.headers },
      // A redirect could carry the credentials to another host.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.status;
    await response.body?.cancel();
  } catch {
    throw new GatewayError(
      'upstream_unreachable',
      `${provider.display_name} could not be reached to check these credentials; please try again.`,
    );
  }
  if (status >= 200 && status < 300) return;
  if (status === 401 || status === 403) {
    throw new GatewayError(
      'invalid_credentials',
      `${provider.display_name} refused these credentials (HTTP ${status}). Check them and try again.`,
    );
  }
  if (status >= 500 || status === 429) {
    throw new GatewayError(
      'upstream_unreachable',
      `${provider.display_name} could not check these credentials right now (HTTP ${status}); please try again.`,
    );
  }
  throw new GatewayError(
    'invalid_credentials',
    `${provider.display_name} did not accept these credentials or settings (HTTP ${status}). Check them and try again.`,
  );
}
