import type { ConnectionCredentials } from './credentials.js';

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
}

/** A connection as the gateway's code uses it, credentials opened. */
export interface Connection extends Omit<StoredConnection, 'credentials'> {
  environment: string;
  credentials: ConnectionCredentials;
}

/** The API's view. Credentials only where the caller asked for one connection. */
export function publicConnection(c: Connection, withCredentials: boolean) {
  return {
    connection_id: c.connection_id,
    provider_config_key: c.provider_config_key,
    provider: c.provider,
    ...(withCredentials ? { credentials: c.credentials } : { auth_mode: c.credentials.type }),
    connection_config: c.connection_config,
    metadata: c.metadata,
    end_user: c.end_user,
    errors: c.auth_problem ? [{ type: 'auth', ...c.auth_problem }] : [],
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}
