import { fail } from '../errors.js';
import type { Connection } from '../connections/index.js';
import type { Provider } from '../providers/index.js';

const placeholder = /\$\{connection_config\.([a-zA-Z0-9_]+)\}/g;
// RFC 3986 unreserved characters, no leading/trailing dot, no "..": a value made of these cannot
// add a scheme, user-info, port, path segment, query or fragment to the URL it fills, so it cannot
// move a token request off the provider's host. The same rule as the proxy's base URL.
const safeValue = /^[A-Za-z0-9_~-](?:[A-Za-z0-9._~-]{0,253}[A-Za-z0-9_~-])?$/;

/**
 * Fills `${connection_config.NAME}` in a catalog template (token URL, token parameters) from
 * the connection's config, falling back to the catalog's `connection_config_defaults`.
 */
export function fillConfigTemplate(template: string, connection: Connection, provider: Provider): string {
  return template.replace(placeholder, (_match, name: string) => {
    const value = connection.connection_config[name] ?? provider.connection_config_defaults?.[name];
    if (value === undefined || value === '') {
      fail('missing_connection_config', `Connection "${connection.connection_id}" has no connection_config.${name}, which provider "${provider.name}" needs. Import the connection again with connection_config.${name} set.`, { field: `connection_config.${name}` });
    }
    if (!safeValue.test(value) || value.includes('..')) {
      fail('invalid_connection_config', `connection_config.${name} of connection "${connection.connection_id}" is not a safe value: use letters, digits, "-", "_", "~" and single inner dots only.`, { field: `connection_config.${name}` });
    }
    return value;
  });
}
