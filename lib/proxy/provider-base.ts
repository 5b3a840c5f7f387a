import type { Connection } from '../connections/index.js';
import { fail } from '../errors.js';
import { fillConnectionTemplate, type Provider } from '../providers/index.js';
import { hasPlaceholder } from '../providers/protocol/index.js';

/** Where a connection's proxied calls go: the filled `proxy.base_url` and the catalog's static extras. */
export interface ProviderBase {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
  /** The `Host` header: hostname, plus the port when it is not the default one. */
  host: string;
  /** Path of the base URL without a trailing slash ('' at the root). */
  basePath: string;
  /** `proxy.headers`, names lower-cased, placeholders filled. */
  headers: readonly (readonly [string, string])[];
  /** `proxy.query`, encoded (`a=1&b=2`), placeholders filled; '' when none. */
  query: string;
}

function build(provider: Provider, connection: Connection): ProviderBase {
  const filled = fillConnectionTemplate(provider.proxy.base_url, connection, provider);
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return fail(
      'invalid_connection_config',
      `The connection_config of connection "${connection.connection_id}" does not make a valid API address for provider "${provider.name}".`,
    );
  }
  // Defence in depth: the value rules above already make these impossible.
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username ||
    url.password ||
    url.hash ||
    !url.hostname
  ) {
    fail(
      'invalid_connection_config',
      `The API address of provider "${provider.name}" for connection "${connection.connection_id}" is not a plain http(s) URL.`,
    );
  }
  const extraQuery = Object.entries(provider.proxy.query ?? {}).map(
    ([name, value]) =>
      `${encodeURIComponent(name)}=${encodeURIComponent(fillConnectionTemplate(value, connection, provider))}`,
  );
  if (url.search.length > 1) extraQuery.unshift(url.search.slice(1));
  return {
    protocol: url.protocol as ProviderBase['protocol'],
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    host: url.host,
    basePath: url.pathname.replace(/\/+$/, ''),
    headers: Object.entries(provider.proxy.headers ?? {}).map(
      ([name, value]) => [name.toLowerCase(), fillConnectionTemplate(value, connection, provider)] as const,
    ),
    query: extraQuery.join('&'),
  };
}

/**
 * Resolves a connection's provider base, cached: per provider when its templates take no
 * connection config, else per connection object (a changed connection is a new object).
 */
export function createBaseResolver() {
  const byProvider = new WeakMap<Provider, ProviderBase>();
  const byConnection = new WeakMap<Connection, ProviderBase>();
  const templated = new WeakMap<Provider, boolean>();

  const isTemplated = (provider: Provider) => {
    let value = templated.get(provider);
    if (value === undefined) {
      const p = provider.proxy;
      value = [p.base_url, ...Object.values(p.headers ?? {}), ...Object.values(p.query ?? {})].some(hasPlaceholder);
      templated.set(provider, value);
    }
    return value;
  };

  return function baseOf(provider: Provider, connection: Connection): ProviderBase {
    const cache = isTemplated(provider) ? byConnection : byProvider;
    const key = cache === byConnection ? connection : provider;
    let base = (cache as WeakMap<object, ProviderBase>).get(key);
    if (!base) {
      base = build(provider, connection);
      (cache as WeakMap<object, ProviderBase>).set(key, base);
    }
    return base;
  };
}

export type BaseResolver = ReturnType<typeof createBaseResolver>;
