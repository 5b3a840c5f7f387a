import type { ServerResponse } from 'node:http';
import type { Test } from 'tap';
import type { GatewayOptions } from '../../lib/gateway.js';
import type { ScriptsOptions } from '../../lib/scripts/index.js';
import { devKey, prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { fakeProvider, type Received } from '../helpers/http.js';
import { waitFor } from '../helpers/wait.js';

export type FakeProvider = Awaited<ReturnType<typeof fakeProvider>>;

/** A catalog entry for a provider on a local fake server (API key as `Authorization: Bearer …`). */
export function providerEntry(
  baseUrl: string,
  proxy: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return {
    name: 'fake-api',
    display_name: 'Fake API',
    logo_url: 'https://example.com/logo.svg',
    categories: ['test'],
    auth_mode: 'API_KEY',
    docs: 'https://example.com/docs',
    ...extra,
    proxy: { base_url: baseUrl, ...proxy },
  };
}

export const apiKey = 'sk_fake_script_key_0123';

/** JSON answer helper for fake providers. */
export function json(res: ServerResponse, body: unknown, status = 200) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

export interface ScriptSetup {
  gw: TestGateway;
  provider: FakeProvider;
  /** The customer's webhook receiver: JSON bodies of every webhook. */
  webhooks(): Record<string, any>[];
  /** `POST /sync/trigger` for connection c1, then waits until that run has finished; answers the sync's status. */
  syncOnce(sync: string, body?: Record<string, unknown>): Promise<Record<string, any>>;
  /** `POST /action/trigger` for connection c1. */
  action(
    name: string,
    input: unknown,
    headers?: Record<string, string>,
    extra?: Record<string, unknown>,
  ): ReturnType<TestGateway['call']>;
}

/**
 * A gateway whose catalog holds `fake-api` on a local fake provider, with integration `fake`,
 * connection `c1`, the scripts given, and a webhook receiver for the dev environment.
 */
export async function scriptSetup(
  t: Test,
  options: {
    respond: (req: Received, res: ServerResponse) => void | Promise<void>;
    scripts: ScriptsOptions;
    proxy?: Record<string, unknown>;
    /** Extra catalog fields of the fake provider (e.g. post_connection_script). */
    provider?: Record<string, unknown>;
    gateway?: Partial<GatewayOptions>;
    scriptLogLevel?: 'debug' | 'info' | 'warn' | 'error';
  },
): Promise<ScriptSetup> {
  const provider = await fakeProvider(options.respond);
  t.teardown(() => provider.close());
  const hooks = await fakeProvider((_req, res) => {
    res.end('ok');
  });
  t.teardown(() => hooks.close());
  const gw = await startGateway(t, {
    providers: [providerEntry(`${provider.url}/api`, options.proxy, options.provider)],
    environments: [
      {
        name: 'dev',
        secretKey: devKey,
        webhookUrl: hooks.url,
        ...(options.scriptLogLevel ? { scriptLogLevel: options.scriptLogLevel } : {}),
      },
      { name: 'prod', secretKey: prodKey },
    ],
    scripts: { workers: 2, heapMb: 64, ...options.scripts },
    ...options.gateway,
  });
  const integration = await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  if (integration.status !== 201) throw new Error(`integration: ${integration.text}`);
  const connection = await gw.call('POST', '/connections', {
    body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } },
  });
  if (connection.status !== 201) throw new Error(`connection: ${connection.text}`);
  return {
    gw,
    provider,
    webhooks: () => hooks.received.map((r) => JSON.parse(r.body.toString('utf8')) as Record<string, any>),
    async syncOnce(sync, body = {}) {
      const statusOf = async () =>
        (await gw.call('GET', `/sync/status?provider_config_key=fake&syncs=${sync}&connection_id=c1`)).json.data[0];
      // Any run started by the connection's creation finishes first.
      await waitFor(async () => (await statusOf())?.status !== 'running', 'an earlier run to finish');
      const before = (await statusOf())?.latest_run?.run_id;
      const res = await gw.call('POST', '/sync/trigger', {
        body: { syncs: [sync], provider_config_key: 'fake', connection_id: 'c1', ...body },
      });
      if (res.status !== 202 || res.json.data.queued.length !== 1)
        throw new Error(`trigger: ${res.status} ${res.text}`);
      return waitFor(async () => {
        const status = await statusOf();
        return status?.latest_run && status.latest_run.run_id !== before && status.latest_run.status !== 'running'
          ? status
          : undefined;
      }, `a run of ${sync}`);
    },
    action(name, input, headers = {}, extra = {}) {
      return gw.call('POST', '/action/trigger', {
        headers: { 'connection-id': 'c1', 'provider-config-key': 'fake', ...headers },
        body: { action_name: name, input, ...extra },
      });
    },
  };
}

export { waitFor };
