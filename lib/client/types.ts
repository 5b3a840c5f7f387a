/** The API's JSON shapes, as the client returns them (snake_case, as on the wire). */

export type AuthMode = 'OAUTH2' | 'OAUTH2_CC' | 'API_KEY' | 'BASIC' | 'APP' | 'NONE';

/** A catalog entry (spec 2.1). */
export interface Provider {
  name: string;
  display_name: string;
  logo_url: string;
  categories: string[];
  auth_mode: AuthMode;
  authorization_url?: string;
  token_url?: string;
  connection_configuration?: string[];
  post_connection_script?: string;
  webhook_routing_script?: string;
  proxy: {
    base_url: string;
    decompress?: boolean;
    paginate?: Record<string, unknown> & { type: string };
    [field: string]: unknown;
  };
  docs: string;
  [field: string]: unknown;
}

export interface EndUser {
  id: string;
  email?: string;
  display_name?: string;
  organization?: { id: string; display_name?: string };
}

/** Credentials by auth mode (spec 2.4); the fields beyond `type` depend on it. */
export type ConnectionCredentials =
  | { type: 'OAUTH2'; access_token: string; refresh_token?: string; expires_at?: string; token_type?: string; scope?: string; raw?: Record<string, unknown> }
  | { type: 'OAUTH2_CC'; token?: string; expires_at?: string; raw?: Record<string, unknown> }
  | { type: 'API_KEY'; apiKey: string }
  | { type: 'BASIC'; username: string; password: string }
  | { type: 'APP'; installation_id: string; access_token?: string; expires_at?: string; user_access_token?: string; user_refresh_token?: string; user_expires_at?: string }
  | { type: 'NONE' };

export interface ConnectionError {
  type: 'auth';
  code: string;
  message: string;
  at: string;
}

interface ConnectionBase {
  connection_id: string;
  provider_config_key: string;
  provider: string;
  connection_config: Record<string, string>;
  metadata: Record<string, unknown>;
  end_user: EndUser | null;
  /** Set when the gateway cannot use the credentials (a refused refresh, an uninstalled app). */
  errors: ConnectionError[];
  created_at: string;
  updated_at: string;
}

/** One connection with its credentials (`getConnection`). */
export interface Connection extends ConnectionBase {
  credentials: ConnectionCredentials;
}

/** A connection in lists and write answers: the auth mode, never the credentials. */
export interface ConnectionSummary extends ConnectionBase {
  auth_mode: AuthMode;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** `POST /connections` (spec 4.5). */
export interface ImportConnectionInput {
  provider_config_key: string;
  connection_id?: string;
  credentials: ConnectionCredentials | { type: 'APP'; installation_id: string | number };
  end_user?: EndUser;
  metadata?: Record<string, unknown>;
  connection_config?: Record<string, string | number | boolean>;
}

export interface ListConnectionsFilter {
  providerConfigKey?: string;
  endUserId?: string;
  /** Substring of the connection id, end-user email or name. */
  search?: string;
  /** 1-1000; default 100. */
  limit?: number;
  cursor?: string;
}

export interface MetadataResult {
  connection_id: string;
  provider_config_key: string;
  metadata: Record<string, unknown>;
}

export type IntegrationCredentialsInput =
  | { type: 'OAUTH2' | 'OAUTH2_CC'; client_id: string; client_secret: string; scopes?: string | string[]; webhook_secret?: string }
  | { type: 'APP'; app_id: string; app_link: string; private_key: string; webhook_secret?: string; client_id?: string; client_secret?: string };

/** An integration as the API shows it: secrets masked. */
export interface Integration {
  unique_key: string;
  provider: string;
  display_name: string;
  auth_mode: AuthMode;
  credentials: Record<string, unknown> | null;
  callback_url: string;
  setup_url?: string;
  webhook_url: string;
  created_at: string;
  updated_at: string;
}
