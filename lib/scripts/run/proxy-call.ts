import type { ProxyConfig } from '../define/service.js';
import type { HostProxyRequest } from '../host.js';

const methods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The rule every script call obeys, in the gateway and in the CLI's dry run: the endpoint is a
 * plain path under the provider's base URL (never a URL), the method one of five.
 */
export function checkProxyConfig(raw: unknown): { config: Partial<ProxyConfig>; endpoint: string; method: string } {
  const config = (raw ?? {}) as Partial<ProxyConfig>;
  const endpoint = config.endpoint;
  if (
    typeof endpoint !== 'string' ||
    !endpoint.startsWith('/') ||
    endpoint.startsWith('//') ||
    /[\\\r\n]/.test(endpoint)
  ) {
    throw new Error(
      'proxy: endpoint must be a path starting with "/" (the provider\'s base URL is added by the gateway)',
    );
  }
  const method = (config.method ?? 'GET').toUpperCase();
  if (!methods.has(method)) throw new Error(`proxy: method ${method} is not one of ${[...methods].join(', ')}`);
  return { config, endpoint, method };
}

/**
 * Turns a script's `proxy(config)` into a host request. The endpoint must be a plain path: the
 * provider's host comes from the catalog, never from the script or a provider's response.
 */
export function toHostRequest(
  target: Pick<HostProxyRequest, 'environment' | 'providerConfigKey' | 'connectionId'>,
  raw: unknown,
): HostProxyRequest {
  const { config, endpoint, method } = checkProxyConfig(raw);
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(config.params ?? {})) {
    if (value === undefined || value === null) continue;
    query[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.headers ?? {})) headers[name.toLowerCase()] = String(value);
  const retries = config.retries ?? 0;
  if (!Number.isInteger(retries) || retries < 0 || retries > 10)
    throw new Error('proxy: retries must be an integer from 0 to 10');
  return { ...target, method, path: endpoint, query, headers, body: config.data, retries };
}
