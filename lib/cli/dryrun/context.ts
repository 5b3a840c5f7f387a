import type { ConnectionSummary } from '../../client/index.js';
import { fillTemplate } from '../../providers/protocol/index.js';
import type { RunContext } from '../../scripts/local.js';
import { CliError, exitCodes } from '../exit.js';
import { onGateway, type GatewayTarget } from '../gateway.js';

/** What a local run needs to know from the gateway, fetched without the connection's credentials. */
export interface DryRunTarget {
  context: RunContext;
  connection: ConnectionSummary;
}

/** The connection by exact id (the list's search matches word starts, so keep looking for the exact one). */
async function findConnection(
  target: GatewayTarget,
  integration: string,
  connectionId: string,
): Promise<ConnectionSummary | undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await onGateway(target, 'looking up the connection', (c) =>
      c.listConnections({
        providerConfigKey: integration,
        search: connectionId,
        limit: 100,
        ...(cursor ? { cursor } : {}),
      }),
    );
    const found = page.data.find((c) => c.connection_id === connectionId);
    if (found || page.next_cursor === null) return found;
    cursor = page.next_cursor;
  }
}

export async function loadDryRunTarget(
  target: GatewayTarget,
  integration: string,
  connectionId: string,
  runId: string,
): Promise<DryRunTarget> {
  const found = await onGateway(target, `reading integration "${integration}"`, (c) => c.getIntegration(integration));
  const provider = await onGateway(target, `reading provider "${found.provider}"`, (c) =>
    c.getProvider(found.provider),
  );
  const connection = await findConnection(target, integration, connectionId);
  if (!connection) {
    throw new CliError(
      exitCodes.failed,
      'unknown_connection',
      `No connection "${connectionId}" under integration "${integration}" at ${target.url}.`,
    );
  }
  const defaults = (provider.connection_config_defaults ?? {}) as Record<string, string>;
  // The same base URL a gateway run uses: next-page links must stay under it.
  const filled = fillTemplate(provider.proxy.base_url, (name) => connection.connection_config[name] ?? defaults[name]);
  if (!filled.ok) {
    throw new CliError(
      exitCodes.failed,
      filled.problem === 'missing' ? 'missing_connection_config' : 'invalid_connection_config',
      `Connection "${connectionId}" has ${filled.problem === 'missing' ? 'no' : 'an unsafe'} connection_config.${filled.name}, which the provider's API address needs.`,
    );
  }
  const baseUrl = filled.value;
  return {
    connection,
    context: {
      runId,
      environment: 'dry-run',
      providerConfigKey: integration,
      connectionId,
      provider: found.provider,
      baseUrl,
      paginate: (provider.proxy.paginate as RunContext['paginate'] | undefined) ?? null,
    },
  };
}
