import { generateKeyPairSync } from 'node:crypto';

/** The bench's three providers, all on the one upstream, one per auth mode measured. */
export function benchProviders(upstream: string) {
  const entry = (name: string, authMode: string, extra: Record<string, unknown> = {}) => ({
    name,
    display_name: name,
    logo_url: 'https://example.com/logo.svg',
    categories: ['bench'],
    auth_mode: authMode,
    docs: 'https://example.com/docs',
    proxy: { base_url: upstream },
    ...extra,
  });
  return [
    entry('bench-key', 'API_KEY'),
    entry('bench-oauth', 'OAUTH2', {
      authorization_url: `${upstream}/oauth/authorize`,
      token_url: `${upstream}/oauth/token`,
    }),
    entry('bench-app', 'APP'),
  ];
}

/** Integrations and connections (`c` under each) as the API takes them. */
export function benchRecords() {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  return {
    integrations: [
      { unique_key: 'key', provider: 'bench-key' },
      {
        unique_key: 'oauth',
        provider: 'bench-oauth',
        credentials: { type: 'OAUTH2' as const, client_id: 'bench', client_secret: 'bench-secret', scopes: [] },
      },
      {
        unique_key: 'app',
        provider: 'bench-app',
        credentials: {
          type: 'APP' as const,
          app_id: '12345',
          app_link: 'https://example.com/apps/bench',
          private_key: privateKey,
        },
      },
    ],
    connections: [
      {
        provider_config_key: 'key',
        connection_id: 'c',
        credentials: { type: 'API_KEY' as const, apiKey: 'bench-api-key' },
      },
      {
        provider_config_key: 'oauth',
        connection_id: 'c',
        credentials: {
          type: 'OAUTH2' as const,
          access_token: 'bench-access',
          refresh_token: 'bench-refresh',
          expires_at: expires,
        },
      },
      { provider_config_key: 'app', connection_id: 'c', credentials: { type: 'APP' as const, installation_id: '42' } },
    ],
  };
}
