import type { Http } from './http.js';
import type { CreateIntegrationInput, Integration, UpdateIntegrationInput } from './types.js';

/** Integrations: which provider, with the customer's own OAuth client or app credentials. */
export function createIntegrationsApi(http: Http) {
  const path = (key: string) => `/integrations/${encodeURIComponent(key)}`;
  return {
    async listIntegrations(): Promise<Integration[]> {
      return (await http.json<{ data: Integration[] }>('GET', '/integrations')).body.data;
    },
    async getIntegration(uniqueKey: string): Promise<Integration> {
      return (await http.json<{ data: Integration }>('GET', path(uniqueKey))).body.data;
    },
    async createIntegration(input: CreateIntegrationInput): Promise<Integration> {
      return (await http.json<{ data: Integration }>('POST', '/integrations', { body: input })).body.data;
    },
    /** E.g. a renewed client secret; `credentials: null` removes them. */
    async updateIntegration(uniqueKey: string, update: UpdateIntegrationInput): Promise<Integration> {
      return (await http.json<{ data: Integration }>('PATCH', path(uniqueKey), { body: update })).body.data;
    },
    /** Deletes the integration and its connections. */
    async deleteIntegration(
      uniqueKey: string,
    ): Promise<{ unique_key: string; deleted: true; deleted_connections: number }> {
      return (
        await http.json<{ data: { unique_key: string; deleted: true; deleted_connections: number } }>(
          'DELETE',
          path(uniqueKey),
        )
      ).body.data;
    },
  };
}
