import { createConnectApi } from './connect.js';
import { createConnectionsApi } from './connections.js';
import { createEnvironmentApi } from './environment.js';
import { createHttp, type PorticoClientOptions } from './http.js';
import { createIntegrationsApi } from './integrations.js';
import { paginate, type PaginateConfig, type PaginationConfig, type PaginationSource } from './paginate.js';
import { createProvidersApi } from './providers.js';
import { createProxyApi } from './proxy.js';
import { createRecordsApi } from './records.js';
import { createScriptsApi } from './scripts.js';
export type {
  ActionCall,
  ActionResult,
  LogsQuery,
  PollOptions,
  ScriptInfo,
  ScriptLog,
  ScriptLogLevel,
  SyncRunInfo,
  SyncSelection,
  SyncStatus,
} from './scripts.js';
export type { ConnectSession, ConnectSessionInput } from './connect.js';
export type {
  ConnectionWebhookUrl,
  ConnectionWebhookUrlInput,
  DeliveriesFilter,
  DeliveryAttempt,
  DeliveryState,
  EnvironmentPatch,
  EnvironmentSettings,
  WebhookDelivery,
  WebhookEventType,
} from './environment.js';

export { PorticoError } from './errors.js';
export { verifyWebhookSignature, type WebhookHeaders } from './webhooks.js';
export type { PorticoClientOptions, Query, QueryValue } from './http.js';
export type { ProxyConfig, ProxyMethod, ProxyResponse } from './proxy.js';
export type { PaginateConfig, PaginationConfig } from './paginate.js';
export type {
  ListRecordsOptions,
  RecordAction,
  RecordFilter,
  RecordMetadata,
  RecordsPage,
  SyncedRecord,
} from './records.js';
export type * from './types.js';

/** The path of a catalog base URL (`https://api.trello.com/1` → `/1`), placeholders ignored. */
function basePathOf(baseUrl: string): string {
  try {
    return new URL(baseUrl.replace(/\$\{[^}]*\}/g, 'x')).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * A typed Node client for a Portico gateway (zero dependencies; global `fetch`).
 * Each feature adds its module here with one line.
 */
export function createPorticoClient(options: PorticoClientOptions) {
  const http = createHttp(options);
  const proxyApi = createProxyApi(http);
  const providers = createProvidersApi(http);
  const integrations = createIntegrationsApi(http);
  const paginationOf = new Map<string, ReturnType<PaginationSource>>();
  const source: PaginationSource = (providerConfigKey) => {
    let found = paginationOf.get(providerConfigKey);
    if (!found) {
      found = integrations
        .getIntegration(providerConfigKey)
        .then((integration) => providers.getProvider(integration.provider))
        .then((provider) => ({
          config: provider.proxy.paginate as PaginationConfig | undefined,
          basePath: basePathOf(provider.proxy.base_url),
        }));
      found.catch(() => paginationOf.delete(providerConfigKey));
      paginationOf.set(providerConfigKey, found);
    }
    return found;
  };

  return {
    ...proxyApi,
    /** Pages through a provider list, one proxied call per page; yields each page's items. */
    paginate: <T = unknown>(config: PaginateConfig) => paginate<T>(proxyApi.proxy, source, config),
    ...createConnectionsApi(http),
    ...createRecordsApi(http),
    ...createScriptsApi(http),
    ...providers,
    ...integrations,
    ...createConnectApi(http),
    ...createEnvironmentApi(http),
  };
}

export type PorticoClient = ReturnType<typeof createPorticoClient>;
