import type { AuthMode } from '../providers/index.js';
import type { ConnectionCredentials } from './credentials.js';

/** Which connection: the key every feature uses to name one (records streams, syncs, script runs). */
export interface ConnectionScope {
  environment: string;
  providerConfigKey: string;
  connectionId: string;
}

export interface EndUser {
  id: string;
  email?: string | undefined;
  display_name?: string | undefined;
  organization?: { id: string; display_name?: string | undefined } | undefined;
}

/** Set when the gateway cannot use the credentials (a refused refresh, an uninstalled app). */
export interface AuthProblem {
  code: string;
  message: string;
  at: string;
}

/** A connection's id in the store: its integration, then its connection id. */
export const storedId = (providerConfigKey: string, connectionId: string) =>
  `${providerConfigKey}\u001e${connectionId}`;

/** What the store keeps: credentials sealed. */
export interface StoredConnection {
  connection_id: string;
  provider_config_key: string;
  provider: string;
  credentials: string;
  connection_config: Record<string, string>;
  metadata: Record<string, unknown>;
  end_user: EndUser | null;
  auth_problem: AuthProblem | null;
  created_at: string;
  updated_at: string;
  /** The credentials' type, kept in clear so a listing opens no credentials (set on every write since the index layout). */
  auth_mode?: AuthMode | undefined;
  /** Its place in the environment's lists (lib/storage collection); set by the store. */
  order?: number | undefined;
}

/** A connection as the gateway's code uses it, credentials opened. */
export interface Connection extends Omit<StoredConnection, 'credentials' | 'auth_mode' | 'order'> {
  environment: string;
  credentials: ConnectionCredentials;
}

/** The API's view. Credentials only where the caller asked for one connection. */
export function publicConnection(c: Connection, withCredentials: boolean) {
  return viewOf(c, withCredentials ? { credentials: c.credentials } : { auth_mode: c.credentials.type });
}

/** The API's view of a stored connection in a listing: nothing sealed is opened. */
export function listedConnection(s: StoredConnection) {
  return viewOf(s, { auth_mode: s.auth_mode ?? null });
}

function viewOf(
  c: Omit<StoredConnection, 'credentials'>,
  auth: { credentials: ConnectionCredentials } | { auth_mode: AuthMode | null },
) {
  return {
    connection_id: c.connection_id,
    provider_config_key: c.provider_config_key,
    provider: c.provider,
    ...auth,
    connection_config: c.connection_config,
    metadata: c.metadata,
    end_user: c.end_user,
    errors: c.auth_problem ? [{ type: 'auth', ...c.auth_problem }] : [],
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}
