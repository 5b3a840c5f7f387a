import type { Connection } from '../connections/index.js';
import { fail } from '../errors.js';
import type { Provider } from '../providers/index.js';

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

const placeholder = /\$\{connection_config\.([a-zA-Z0-9_]+)\}/g;
const hasPlaceholder = (value: string) => value.includes('${connection_config.');

/*
 * Unreserved characters only, not starting or ending with a dot, no "..": such a value cannot
 * add a scheme, user-info, port, path segment, query or fragment, nor be a dot segment.
 * In a host it can only add labels; in a path it stays one segment.
 */
const safeValue = /^[A-Za-z0-9_~-](?:[A-Za-z0-9._~-]{0,253}[A-Za-z0-9_~-])?$/;

function fill(template: string, provider: Provider, connection: Connection): string {
  return template.replace(placeholder, (_whole, name: string) => {
    const value = connection.connection_config[name] ?? provider.connection_config_defaults?.[name];
    if (value === undefined || value === '') {
      fail('missing_connection_config', `Connection "${connection.connection_id}" has no connection_config.${name}, which provider "${provider.name}" needs to build its API address. Import the connection again with connection_config.${name} set.`, { field: `connection_config.${name}` });
    }
    if (!safeValue.test(value) || value.includes('..')) {
      fail('invalid_connection_config', `connection_config.${name} of connection "${connection.connection_id}" is not a safe value: use letters, digits, "-", "_", "~" and single inner dots only.`, { field: `connection_config.${name}` });
    }
    return value;
  });
}

function build(provider: Provider, connection: Connection): ProviderBase {
  const filled = fill(provider.proxy.base_url, provider, connection);
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return fail('invalid_connection_config', `The connection_config of connection "${connection.connection_id}" does not make a valid API address for provider "${provider.name}".`);
  }
  // Defence in depth: the value rules above already make these impossible.
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.hash || !url.hostname) {
    fail('invalid_connection_config', `The API address of provider "${provider.name}" for connection "${connection.connection_id}" is not a plain http(s) URL.`);
  }
  const extraQuery = Object.entries(provider.proxy.query ?? {})
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(fill(value, provider, connection))}`);
  if (url.search.length > 1) extraQuery.unshift(url.search.slice(1));
  return {
    protocol: url.protocol as ProviderBase['protocol'],
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    host: url.host,
    basePath: url.pathname.replace(/\/+$/, ''),
    headers: Object.entries(provider.proxy.headers ?? {})
      .map(([name, value]) => [name.toLowerCase(), fill(value, provider, connection)] as const),
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
