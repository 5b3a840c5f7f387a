import type { ServerResponse } from 'node:http';
import type { Test } from 'tap';
import {
  createCredentialResolver,
  type CredentialResolverDeps,
  type CredentialTarget,
} from '../../lib/credentials/index.js';
import { createLogger } from '../../lib/http/logger.js';
import type { GatewayOptions } from '../../lib/gateway.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { fakeProvider, type Received } from '../helpers/http.js';

/** A minimal catalog entry for tests; `extra` overrides fields. */
export function testProvider(name: string, authMode: string, baseUrl: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    display_name: name,
    logo_url: 'https://cdn.portico.dev/providers/test.svg',
    categories: ['test'],
    auth_mode: authMode,
    docs: 'https://example.com/docs',
    ...extra,
    proxy: { base_url: baseUrl, ...(extra.proxy as Record<string, unknown> | undefined) },
  };
}

export type Responder = (req: Received, res: ServerResponse) => void | Promise<void>;

/** A fake token endpoint whose answer the test can change, recording every request. */
export async function fakeTokenServer(t: Test, first: Responder) {
  let respond = first;
  const server = await fakeProvider((req, res) => respond(req, res));
  t.teardown(() => server.close());
  return {
    ...server,
    set(next: Responder) {
      respond = next;
    },
    /** The form fields of request `i`. */
    form(i: number) {
      return Object.fromEntries(new URLSearchParams(server.received[i]?.body.toString() ?? ''));
    },
  };
}

export function json(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

export interface Harness {
  gw: TestGateway;
  lines: string[];
  resolverWith(overrides?: Partial<CredentialResolverDeps>): ReturnType<typeof createCredentialResolver>;
  target(pck: string, cid: string): Promise<CredentialTarget>;
  create(path: string, body: unknown): Promise<void>;
}

/** A real gateway (memory storage unless given) and resolvers over its real services. */
export async function harness(t: Test, overrides: Partial<GatewayOptions> = {}): Promise<Harness> {
  const lines: string[] = [];
  const gw = await startGateway(t, {
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    ...overrides,
  });
  const { gateway } = gw;
  return {
    gw,
    lines,
    resolverWith: (deps = {}) =>
      createCredentialResolver({
        connections: gateway.connections,
        coordinator: gateway.storage.coordinator,
        logger: gateway.logger,
        ...deps,
      }),
    async target(pck, cid) {
      const connection = await gateway.connections.require('dev', pck, cid);
      const integration = await gateway.integrations.require('dev', pck);
      const provider = gateway.catalog.get(connection.provider);
      if (!provider) throw new Error(`no provider ${connection.provider}`);
      return { environment: 'dev', connection, integration, provider };
    },
    async create(path, body) {
      const res = await gw.call('POST', path, { body });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
    },
  };
}

/** An ISO timestamp `ms` from now. */
export const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
