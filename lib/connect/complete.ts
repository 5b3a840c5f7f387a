import type { Context } from 'koa';
import type { Connection, ConnectionCredentials } from '../connections/index.js';
import type { FlowDeps } from './deps.js';
import { operationOf, type Flow } from './flow-store.js';
import { sendSuccessPage } from './pages/result-page.js';
import { lookFor } from './look.js';

const hookTimeoutMs = 15_000;

/**
 * Stores the connection (created, or overriding the one being re-authorized) in one write,
 * which also publishes the authorization event; then runs the provider's post-connection
 * hook and answers the success page.
 */
export async function completeConnection(
  deps: FlowDeps,
  ctx: Context,
  flow: Flow,
  credentials: ConnectionCredentials,
  connectionConfig: Record<string, string>,
): Promise<void> {
  const { connection } = await deps.connections.upsert(
    flow.environment,
    {
      provider_config_key: flow.provider_config_key,
      connection_id: flow.connection_id ?? undefined,
      credentials,
      // Each connection keeps its own copy of the end user (spec 2.4).
      end_user: structuredClone(flow.end_user),
      connection_config: connectionConfig,
    },
    operationOf(flow),
  );
  await runPostConnectionHook(deps, connection);
  const look = lookFor(
    deps,
    ctx,
    {
      branding: flow.branding,
      locale: flow.locale,
      provider: flow.provider,
      endUser: flow.end_user,
      providerConfigKey: flow.provider_config_key,
    },
    flow.origin,
  );
  sendSuccessPage(
    ctx,
    look,
    { provider_config_key: connection.provider_config_key, connection_id: connection.connection_id },
    flow.kind === 'admin_consent' ? 'organization' : 'account',
  );
}

/** A hook failing (or missing) is logged; the connection is already stored and stays. */
async function runPostConnectionHook(deps: FlowDeps, connection: Connection): Promise<void> {
  const provider = deps.catalog.get(connection.provider);
  const name = provider?.post_connection_script;
  if (!provider || !name) return;
  const fields = {
    environment: connection.environment,
    provider_config_key: connection.provider_config_key,
    connection_id: connection.connection_id,
    script: name,
  };
  const hook = deps.hooks.get(name);
  if (!hook) {
    deps.logger.warn('post-connection script not registered; connection kept without it', fields);
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const integration = await deps.integrations.require(connection.environment, connection.provider_config_key);
    const run = Promise.resolve(
      hook({
        environment: connection.environment,
        connection,
        integration,
        provider,
        logger: deps.logger,
        mergeMetadata: async (metadata) => {
          await deps.connections.setMetadata(
            connection.environment,
            connection.provider_config_key,
            [connection.connection_id],
            metadata,
            'merge',
          );
        },
      }),
    );
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not finish within ${hookTimeoutMs / 1000} s`)), hookTimeoutMs);
    });
    await Promise.race([run, timeout]);
  } catch (error) {
    deps.logger.warn('post-connection script failed; connection kept', {
      ...fields,
      error: error instanceof Error ? error.message : String(error),
    });
  } finally {
    clearTimeout(timer);
  }
}
