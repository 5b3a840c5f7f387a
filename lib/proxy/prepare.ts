import type { IncomingHttpHeaders } from 'node:http';
import type { Connection, ConnectionService } from '../connections/index.js';
import type { CredentialTarget } from '../credentials/index.js';
import { fail } from '../errors.js';
import type { Integration, IntegrationService } from '../integrations/index.js';
import type { Catalog, Paginate } from '../providers/index.js';
import type { ProxyControl } from './control.js';
import type { BaseResolver, ProviderBase } from './provider-base.js';
import { isIdempotent } from './retry.js';
import { checkProviderPath, checkProviderQuery } from './safe-target.js';

/** What a caller asks: from the HTTP route or the programmatic API. */
export interface ProxyCallInput {
  environment: string;
  control: ProxyControl;
  method: string;
  /** Provider path, raw (percent-encoding as sent), starting with "/". */
  path: string;
  /** Raw query string without "?", or ''. */
  query: string;
  headers: IncomingHttpHeaders;
}

/** A call resolved against the stores and checked: ready to send. */
export interface PreparedCall {
  target: CredentialTarget;
  base: ProviderBase;
  method: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  retries: number;
  decompress: boolean;
  /** Cap of a decoded body: the integration's, else the gateway's `maxDecodedBytes`. */
  maxDecodedBytes: number;
  paginate: { config: Paginate; maxItems: number; maxPages: number; maxBytes: number } | undefined;
  /** A provider 401 is answered by a forced token refresh and one more try. */
  refreshOn401: boolean;
  /** The body may have to be sent more than once (so it is buffered when small enough). */
  mayReplay: boolean;
}

export interface PrepareDeps {
  catalog: Catalog;
  integrations: IntegrationService;
  connections: ConnectionService;
  baseOf: BaseResolver;
  maxPages: number;
  maxPaginatedBytes: number;
  maxDecodedBytes: number;
  maxDecodedBytesByIntegration: Readonly<Record<string, number>>;
}

const tokenModes = new Set(['OAUTH2', 'OAUTH2_CC', 'APP']);

/**
 * Resolve step: integration, connection and provider come from the in-process caches (no store
 * round trip once warm, nothing written), the provider path and query are checked, the base
 * URL is filled. Warm, it answers at once (no promise); cold, it reads the stores.
 */
export function createPrepare(deps: PrepareDeps) {
  // A Map: a lookup in an object by a key that changes from call to call is a generic (megamorphic) load.
  const decodedCaps = new Map(Object.entries(deps.maxDecodedBytesByIntegration));
  function assemble(
    input: ProxyCallInput,
    path: string,
    query: string,
    integration: Integration,
    connection: Connection,
  ): PreparedCall {
    const { control } = input;
    const provider =
      deps.catalog.get(integration.provider) ??
      fail(
        'unknown_provider',
        `Integration "${integration.unique_key}" uses provider "${integration.provider}", which is not in the catalog.`,
      );
    let paginate: PreparedCall['paginate'];
    if (control.paginate) {
      const config =
        provider.proxy.paginate ??
        fail(
          'invalid_request',
          `Provider "${provider.name}" has no pagination settings (proxy.paginate), so "Paginate: true" cannot be followed.`,
          { header: 'Paginate' },
        );
      paginate = {
        config,
        maxItems: control.paginate.maxItems ?? Number.POSITIVE_INFINITY,
        maxPages: Math.min(control.paginate.maxPages ?? deps.maxPages, deps.maxPages),
        maxBytes: Math.min(control.paginate.maxBytes ?? deps.maxPaginatedBytes, deps.maxPaginatedBytes),
      };
    }
    const refreshOn401 = tokenModes.has(connection.credentials.type);
    return {
      target: { environment: input.environment, integration, connection, provider },
      base: deps.baseOf(provider, connection),
      method: input.method,
      path,
      query,
      headers: input.headers,
      retries: control.retries,
      decompress: control.decompress ?? provider.proxy.decompress ?? false,
      maxDecodedBytes: decodedCaps.get(integration.unique_key) ?? deps.maxDecodedBytes,
      paginate,
      refreshOn401,
      mayReplay: paginate !== undefined || refreshOn401 || (control.retries > 0 && isIdempotent(input.method)),
    };
  }

  async function load(input: ProxyCallInput, path: string, query: string): Promise<PreparedCall> {
    const { environment, control } = input;
    const integration = await deps.integrations.require(environment, control.providerConfigKey);
    const connection = await deps.connections.require(environment, control.providerConfigKey, control.connectionId);
    return assemble(input, path, query, integration, connection);
  }

  return function prepare(input: ProxyCallInput): PreparedCall | Promise<PreparedCall> {
    const path = checkProviderPath(input.path);
    const query = checkProviderQuery(input.query);
    const { control, environment } = input;
    const integration = deps.integrations.cached(environment, control.providerConfigKey);
    const connection =
      integration && deps.connections.cached(environment, control.providerConfigKey, control.connectionId);
    return connection ? assemble(input, path, query, integration, connection) : load(input, path, query);
  };
}

export type Prepare = ReturnType<typeof createPrepare>;
