import { PorticoError, envelopeOf } from './errors.js';
import { readBody, type Http, type Query } from './http.js';

export type ProxyMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One call to a provider's API through the gateway (spec 1.7, 4.4). */
export interface ProxyConfig {
  /** The provider path, e.g. `/v1.0/me/drive/root/children` or `/installation/repositories`. */
  endpoint: string;
  /** The integration's unique key (`Provider-Config-Key`). */
  providerConfigKey: string;
  /** The connection whose credentials are attached (`Connection-Id`). */
  connectionId: string;
  method?: ProxyMethod;
  /** Query parameters for the provider. */
  params?: Query;
  /** Headers for the provider. */
  headers?: Record<string, string>;
  /** The request body: a plain object or array is sent as JSON, anything else (string, bytes, stream) as is. */
  data?: unknown;
  /** How often the gateway retries on 429/5xx (`Retries` header). */
  retries?: number;
  /** `json` (default: parsed when the response says JSON, text otherwise), `text`, `arraybuffer` or `stream`. */
  responseType?: 'json' | 'text' | 'arraybuffer' | 'stream';
}

export interface ProxyResponse<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
}

const isJsonBody = (data: unknown) =>
  Array.isArray(data) ||
  (typeof data === 'object' && data !== null && Object.getPrototypeOf(data) === Object.prototype);

async function readAs(response: Response, type: ProxyConfig['responseType']): Promise<unknown> {
  switch (type) {
    case 'stream':
      return response.body;
    case 'arraybuffer':
      return response.arrayBuffer();
    case 'text':
      return response.text();
    default:
      return readBody(response);
  }
}

/** The proxy: `proxy()` and one shortcut per method. Non-2xx answers throw a `PorticoError`. */
export function createProxyApi(http: Http) {
  async function proxy<T = unknown>(config: ProxyConfig): Promise<ProxyResponse<T>> {
    const json = isJsonBody(config.data);
    const headers: Record<string, string> = {
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...config.headers,
      'provider-config-key': config.providerConfigKey,
      'connection-id': config.connectionId,
      ...(config.retries !== undefined ? { retries: String(config.retries) } : {}),
    };
    const endpoint = config.endpoint.startsWith('/') ? config.endpoint : `/${config.endpoint}`;
    const response = await http.send(config.method ?? 'GET', `/proxy${endpoint}`, {
      query: config.params,
      headers,
      body: config.data === undefined ? undefined : json ? JSON.stringify(config.data) : (config.data as BodyInit),
    });
    if (!response.ok) {
      const data = await readBody(response);
      const gatewayCode = response.headers.get('portico-error');
      const envelope = gatewayCode ? envelopeOf(data) : undefined;
      throw new PorticoError(
        envelope
          ? { code: envelope.code, status: response.status, message: envelope.message, details: envelope.details }
          : {
              code: 'provider_error',
              status: response.status,
              message: `The provider answered ${response.status} to ${config.method ?? 'GET'} ${endpoint}.`,
              response: { headers: response.headers, data },
            },
      );
    }
    return {
      status: response.status,
      headers: response.headers,
      data: (await readAs(response, config.responseType)) as T,
    };
  }

  const shortcut =
    (method: ProxyMethod) =>
    <T = unknown>(config: Omit<ProxyConfig, 'method'>) =>
      proxy<T>({ ...config, method });
  return {
    proxy,
    get: shortcut('GET'),
    post: shortcut('POST'),
    put: shortcut('PUT'),
    patch: shortcut('PATCH'),
    delete: shortcut('DELETE'),
  };
}

export type ProxyApi = ReturnType<typeof createProxyApi>;
