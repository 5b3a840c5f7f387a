import type { Connection } from '../connections/index.js';
import { fail } from '../errors.js';
import { fillTemplate, safeConfigValueRule } from './protocol/index.js';
import type { Provider } from './schema.js';

/**
 * Fills a catalog template (token URL, token parameters, API base URL, proxy headers and query)
 * from a stored connection's config, falling back to the catalog's `connection_config_defaults`.
 * Throws the gateway error a customer can act on.
 */
export function fillConnectionTemplate(
  template: string,
  connection: Pick<Connection, 'connection_id' | 'connection_config'>,
  provider: Provider,
): string {
  const filled = fillTemplate(
    template,
    (name) => connection.connection_config[name] ?? provider.connection_config_defaults?.[name],
  );
  if (filled.ok) return filled.value;
  const { name } = filled;
  if (filled.problem === 'missing') {
    fail(
      'missing_connection_config',
      `Connection "${connection.connection_id}" has no connection_config.${name}, which provider "${provider.name}" needs. Import the connection again with connection_config.${name} set.`,
      { field: `connection_config.${name}` },
    );
  }
  return fail(
    'invalid_connection_config',
    `connection_config.${name} of connection "${connection.connection_id}" is not a safe value: use only ${safeConfigValueRule}.`,
    { field: `connection_config.${name}` },
  );
}
