import { GatewayError } from '../errors.js';
import type { Provider } from '../providers/index.js';
import {
  blankPlaceholders,
  fillTemplate as fill,
  isSafeConfigValue,
  placeholderFor,
  placeholderNames,
  safeConfigValueRule,
} from '../providers/protocol/index.js';

/** The templates a connection's config fills: where the browser goes and where secrets are sent. */
const templatesOf = (p: Provider) =>
  [p.authorization_url, p.token_url, p.admin_consent_url, p.proxy.base_url].filter((t): t is string => Boolean(t));

/**
 * True when `name` fills the host of one of the provider's URLs without a fixed domain after
 * it (`https://${domain}/…`, `https://api.${site}`): whoever sets it picks the host that
 * receives the client secret and the proxied calls, so only the customer may set it.
 */
export function picksHost(provider: Provider, name: string): boolean {
  return templatesOf(provider).some((template) => {
    const authority = template.replace(/^https?:\/\//, '').split(/[/?#]/)[0] ?? '';
    const marker = placeholderFor(name);
    const at = authority.lastIndexOf(marker);
    if (at < 0) return false;
    const after = blankPlaceholders(authority.slice(at + marker.length), 'x');
    // `.zendesk.com`, `.api.mailchimp.com`: the value only names a subdomain of a fixed domain.
    return !/^\.[A-Za-z0-9-]+\.[A-Za-z0-9.-]+$/.test(after);
  });
}

function valueProblem(name: string, value: string): string | undefined {
  return isSafeConfigValue(value) ? undefined : `connection_config.${name} may hold only ${safeConfigValueRule}.`;
}

/**
 * The config an authorization starts with: catalog defaults, then what the end user typed
 * (declared names only, never a host), then what the customer fixed in the session, which wins.
 */
export function mergeConnectionConfig(
  provider: Provider,
  customer: Record<string, string>,
  endUser: Record<string, string>,
): Record<string, string> {
  const declared = new Set(provider.connection_configuration ?? []);
  for (const name of Object.keys(endUser)) {
    if (customer[name] !== undefined) continue;
    if (!declared.has(name)) {
      throw new GatewayError(
        'invalid_connection_config',
        `Provider "${provider.name}" has no connection setting "${name}".`,
        { field: `connection_config.${name}` },
      );
    }
    if (picksHost(provider, name)) {
      throw new GatewayError(
        'invalid_connection_config',
        `connection_config.${name} decides which host receives the credentials, so only the application can set it (in the connect session).`,
        { field: `connection_config.${name}` },
      );
    }
  }
  const merged = { ...provider.connection_config_defaults, ...endUser, ...customer };
  for (const [name, value] of Object.entries(merged)) {
    const problem = valueProblem(name, value);
    if (problem) throw new GatewayError('invalid_connection_config', problem, { field: `connection_config.${name}` });
  }
  return merged;
}

/**
 * Names the authorization itself needs and `config` lacks: the consent and token URLs for
 * OAuth (API base URL values such as a cloud id come later, from the token answer or a
 * post-connection hook), the API base URL for typed credentials (it is called to verify them).
 */
export function missingConfig(provider: Provider, config: Record<string, string>): string[] {
  const typed = provider.auth_mode === 'API_KEY' || provider.auth_mode === 'BASIC';
  const templates = typed
    ? [provider.proxy.base_url]
    : provider.auth_mode === 'APP'
      ? []
      : [provider.authorization_url, provider.token_url, provider.admin_consent_url];
  const needed = new Set<string>();
  for (const template of templates) for (const name of placeholderNames(template ?? '')) needed.add(name);
  return [...needed].filter((name) => !config[name]);
}

/** Fills `${connection_config.NAME}` placeholders; every value was checked by `mergeConnectionConfig`. */
export function fillTemplate(template: string, config: Record<string, string>): string {
  const filled = fill(template, (name) => config[name]);
  if (filled.ok) return filled.value;
  throw new GatewayError('invalid_connection_config', `connection_config.${filled.name} is missing or invalid.`, {
    field: `connection_config.${filled.name}`,
  });
}
