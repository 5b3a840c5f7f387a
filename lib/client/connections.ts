import type { Http } from './http.js';
import type {
  Connection,
  ConnectionSummary,
  ImportConnectionInput,
  ListConnectionsFilter,
  MetadataResult,
  Page,
  PatchConnectionInput,
} from './types.js';

/** Connections (spec 2.4, 4.5-4.7), on the `/connections` paths (the `/connection` ones were removed). */
export function createConnectionsApi(http: Http) {
  const path = (connectionId: string) => `/connections/${encodeURIComponent(connectionId)}`;
  const metadata = async (
    method: 'POST' | 'PATCH',
    providerConfigKey: string,
    connectionId: string | readonly string[],
    value: Record<string, unknown>,
  ) =>
    (
      await http.json<{ data: MetadataResult[] }>(method, '/connections/metadata', {
        body: { provider_config_key: providerConfigKey, connection_id: connectionId, metadata: value },
      })
    ).body.data;

  return {
    /** One connection with its credentials. */
    async getConnection(providerConfigKey: string, connectionId: string): Promise<Connection> {
      return (
        await http.json<{ data: Connection }>('GET', path(connectionId), {
          query: { provider_config_key: providerConfigKey },
        })
      ).body.data;
    },
    /** One page of connections (no credentials); pass `next_cursor` as `cursor` for the next. */
    async listConnections(filter: ListConnectionsFilter = {}): Promise<Page<ConnectionSummary>> {
      return (
        await http.json<Page<ConnectionSummary>>('GET', '/connections', {
          query: {
            provider_config_key: filter.providerConfigKey,
            end_user_id: filter.endUserId,
            search: filter.search,
            limit: filter.limit,
            cursor: filter.cursor,
          },
        })
      ).body;
    },
    /** Creates a connection from existing credentials, or overrides one with the same id. */
    async importConnection(input: ImportConnectionInput): Promise<{ connection: ConnectionSummary; created: boolean }> {
      const { status, body } = await http.json<{ data: ConnectionSummary }>('POST', '/connections', { body: input });
      return { connection: body.data, created: status === 201 };
    },
    /** Patches this connection's own copy of its end user (spec 2.4: other connections are untouched). */
    async patchConnection(
      providerConfigKey: string,
      connectionId: string,
      patch: PatchConnectionInput,
    ): Promise<ConnectionSummary> {
      return (
        await http.json<{ data: ConnectionSummary }>('PATCH', path(connectionId), {
          query: { provider_config_key: providerConfigKey },
          body: patch,
        })
      ).body.data;
    },
    async deleteConnection(providerConfigKey: string, connectionId: string): Promise<void> {
      await http.json('DELETE', path(connectionId), { query: { provider_config_key: providerConfigKey } });
    },
    /** Replaces the metadata of one or several connections of an integration. */
    setMetadata(
      providerConfigKey: string,
      connectionId: string | readonly string[],
      value: Record<string, unknown>,
    ): Promise<MetadataResult[]> {
      return metadata('POST', providerConfigKey, connectionId, value);
    },
    /** Merges into the metadata of one or several connections (top-level keys). */
    updateMetadata(
      providerConfigKey: string,
      connectionId: string | readonly string[],
      value: Record<string, unknown>,
    ): Promise<MetadataResult[]> {
      return metadata('PATCH', providerConfigKey, connectionId, value);
    },
  };
}
