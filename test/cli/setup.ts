import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Test } from 'tap';
import type { GatewayOptions } from '../../lib/gateway.js';
import { devKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { fakeProvider, type Received } from '../helpers/http.js';
import { buildCli, runPortico, type BuiltCli, type CliRun } from './harness.js';

export const apiKey = 'sk_fake_cli_provider_key_42';

/** A folder outside the repository (no node_modules above it), removed when the test ends. */
export function tempFolder(t: Test, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-cli-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

/** The CLI built once for a test file. */
export async function cliFor(t: Test): Promise<BuiltCli> {
  const cli = await buildCli();
  t.teardown(() => cli.remove());
  return cli;
}

export function json(res: ServerResponse, body: unknown, status = 200) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

export interface CliGateway {
  gw: TestGateway;
  provider: Awaited<ReturnType<typeof fakeProvider>>;
  /** `portico …` in `cwd`, pointed at this gateway with the dev key. */
  portico(args: readonly string[], cwd: string, env?: Record<string, string>, input?: string): Promise<CliRun>;
}

/**
 * A gateway on 127.0.0.1 whose catalog holds `fake-api` (API key, cursor pagination) on a fake
 * provider, with integration `fake` and connection `c1`.
 */
export async function cliGateway(
  t: Test,
  cli: BuiltCli,
  respond: (req: Received, res: ServerResponse) => void,
  overrides: Partial<GatewayOptions> = {},
): Promise<CliGateway> {
  const provider = await fakeProvider(respond);
  t.teardown(() => provider.close());
  const gw = await startGateway(t, {
    providers: [
      {
        name: 'fake-api',
        display_name: 'Fake API',
        logo_url: 'https://example.com/logo.svg',
        categories: ['test'],
        auth_mode: 'API_KEY',
        docs: 'https://example.com/docs',
        proxy: {
          base_url: `${provider.url}/api`,
          paginate: {
            type: 'cursor',
            cursor_path_in_response: 'next',
            cursor_name_in_request: 'cursor',
            response_path: 'items',
          },
        },
      },
    ],
    ...overrides,
  });
  const integration = await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  if (integration.status !== 201) throw new Error(`integration: ${integration.text}`);
  const connection = await gw.call('POST', '/connections', {
    body: {
      provider_config_key: 'fake',
      connection_id: 'c1',
      credentials: { type: 'API_KEY', apiKey },
      metadata: { team: 'core' },
    },
  });
  if (connection.status !== 201) throw new Error(`connection: ${connection.text}`);
  return {
    gw,
    provider,
    portico: (args, cwd, env = {}, input) =>
      runPortico(cli, args, {
        cwd,
        env: { SERVICE_BASE_URL: gw.url, SERVICE_SECRET_KEY: devKey, ...env },
        ...(input !== undefined ? { input } : {}),
      }),
  };
}

/** Script sources in the current format. */
export const header = "import { createSync, createAction } from 'portico/scripts';\nimport { z } from 'zod';\n";
