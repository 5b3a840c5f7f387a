/**
 * The API's JSON shapes, as the client returns them (snake_case, as on the wire). Request bodies
 * are the server's own zod schemas' input types (type-only imports: no server code reaches the
 * client at run time); answers are written out here and checked against the server's types in
 * test/client.
 */
import type { z } from 'zod';
import type { importConnectionSchema, patchConnectionSchema } from '../connections/index.js';
import type {
  createIntegrationSchema,
  integrationCredentialsSchema,
  updateIntegrationSchema,
} from '../integrations/index.js';

export type AuthMode = 'OAUTH2' | 'OAUTH2_CC' | 'API_KEY' | 'BASIC' | 'APP' | 'NONE';

/** A catalog entry (spec 2.1). */
export interface Provider {
  name: string;
  display_name: string;
  /** `{base_url}/providers/{name}/logo.svg` (public), unless a custom entry names its own. */
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
  /** Always set in the built-in catalog; a custom provider may leave it out. */
  docs?: string;
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
  | {
      type: 'OAUTH2';
      access_token: string;
      refresh_token?: string;
      expires_at?: string;
      token_type?: string;
      scope?: string;
      raw?: Record<string, unknown>;
    }
  | { type: 'OAUTH2_CC'; token?: string; expires_at?: string; raw?: Record<string, unknown> }
  | { type: 'API_KEY'; apiKey: string }
  | { type: 'BASIC'; username: string; password: string }
  | {
      type: 'APP';
      installation_id: string;
      access_token?: string;
      expires_at?: string;
      user_access_token?: string;
      user_refresh_token?: string;
      user_expires_at?: string;
    }
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

/** `POST /connections` (spec 4.5): the body the gateway validates, from its own schema. */
export type ImportConnectionInput = z.input<typeof importConnectionSchema>;

/** `PATCH /connections/{id}` (spec 4.7). */
export type PatchConnectionInput = z.input<typeof patchConnectionSchema>;

export interface ListConnectionsFilter {
  providerConfigKey?: string;
  endUserId?: string;
  /**
   * Matches where a word of the connection id, end-user email or display name starts (case-insensitive;
   * `ada` finds `ada-1` and `Lady Ada`, not `Nevada`). Results come in order of the matched text.
   */
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

export type IntegrationCredentialsInput = z.input<typeof integrationCredentialsSchema>;
export type CreateIntegrationInput = z.input<typeof createIntegrationSchema>;
export type UpdateIntegrationInput = z.input<typeof updateIntegrationSchema>;

/** An integration as the API shows it: secrets masked. */
export interface Integration {
  unique_key: string;
  provider: string;
  display_name: string;
  auth_mode: AuthMode;
  credentials: Record<string, unknown> | null;
  /** The app name and accent colour on this integration's connect pages; null when unset. */
  branding: { app_name?: string; accent_color?: string } | null;
  callback_url: string;
  setup_url?: string;
  webhook_url: string;
  created_at: string;
  updated_at: string;
}
