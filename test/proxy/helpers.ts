import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { Test } from 'tap';
import type { GatewayOptions } from '../../lib/gateway.js';
import { devKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';

export type FakeProvider = Awaited<ReturnType<typeof fakeProvider>>;

/** A catalog entry for a provider living on a local fake server. */
export function providerEntry(
  name: string,
  baseUrl: string,
  proxy: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return {
    name,
    display_name: name,
    logo_url: 'https://example.com/logo.svg',
    categories: ['test'],
    auth_mode: 'API_KEY',
    docs: 'https://example.com/docs',
    ...extra,
    proxy: { base_url: baseUrl, ...proxy },
  };
}

export interface ProxySetup {
  gw: TestGateway;
  provider: FakeProvider;
  /** Calls `/proxy{path}` with the control headers of connection `c1` of integration `fake`. */
  proxy(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string | Buffer },
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer; json: any }>;
}

export const apiKey = 'sk_fake_0123456789';

/**
 * A gateway whose catalog holds `fake-api` (API key, placed as `Authorization: Bearer …`) on a
 * fake provider server, with integration `fake` and connection `c1`.
 */
export async function proxySetup(
  t: Test,
  options: {
    respond?: Parameters<typeof fakeProvider>[0];
    proxy?: Record<string, unknown>;
    provider?: Record<string, unknown>;
    basePath?: string;
    /** The whole base URL (default: the fake provider's URL + basePath). */
    baseUrl?: string;
    connection?: Record<string, unknown>;
    gateway?: Partial<GatewayOptions>;
  } = {},
): Promise<ProxySetup> {
  const provider = await fakeProvider(options.respond);
  t.teardown(() => provider.close());
  const gw = await startGateway(t, {
    providers: [
      providerEntry(
        'fake-api',
        options.baseUrl ?? provider.url + (options.basePath ?? '/api'),
        options.proxy,
        options.provider,
      ),
    ],
    ...options.gateway,
  });
  t.equal((await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } })).status, 201);
  const created = await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'fake',
      connection_id: 'c1',
      credentials: { type: 'API_KEY', apiKey },
      ...options.connection,
    },
  });
  t.equal(created.status, 201, 'connection imported');
  return {
    gw,
    provider,
    proxy: (method, path, init = {}) =>
      send(
        gw.url,
        method,
        `/proxy${path}`,
        {
          authorization: `Bearer ${devKey}`,
          'provider-config-key': 'fake',
          'connection-id': 'c1',
          ...init.headers,
        },
        init.body,
      ),
  };
}

/** An HTTP request with the path exactly as given (fetch would normalise `..` and friends). */
export function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
) {
  const { hostname, port } = new URL(base);
  // Node sends a DELETE body without framing unless the length is set.
  const framed =
    body !== undefined && !Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h))
      ? { ...headers, 'content-length': String(Buffer.byteLength(body)) }
      : headers;
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer; json: any }>((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers: framed }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(text.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends bytes on a raw socket (for request lines no HTTP client would produce) and returns the status. */
export function rawStatus(base: string, requestText: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
    socket.end(requestText);
  });
}
