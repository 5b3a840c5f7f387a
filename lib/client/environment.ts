import type { z } from 'zod';
import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  WebhookEventType,
  connectionWebhookUrlSchema,
  environmentPatchSchema,
} from '../webhooks/index.js';
import type { Http } from './http.js';
import type { Page } from './types.js';

export type EnvironmentPatch = z.input<typeof environmentPatchSchema>;
export type ConnectionWebhookUrlInput = z.input<typeof connectionWebhookUrlSchema>;

/** The environment's webhook settings (`GET /environment`). */
export interface EnvironmentSettings {
  name: string;
  webhook_url: string | null;
  webhook_secondary_url: string | null;
  /** Masked, except in the answer of `rotateWebhookSigningKey()`. */
  webhook_signing_key: string;
  webhook_signing_key_source: 'configured' | 'generated';
  webhook_signing_key_created_at: string;
}

export type { DeliveryState, WebhookEventType };
/** One delivery attempt, as the API shows it (the server's own type). */
export type DeliveryAttempt = AttemptRecord;
/** One webhook event to one URL, with every attempt: the server's record without its internal sequence and environment. */
export type WebhookDelivery = Omit<DeliveryRecord, 'environment' | 'seq'>;

export interface DeliveriesFilter {
  connectionId?: string;
  providerConfigKey?: string;
  type?: WebhookEventType;
  state?: DeliveryState;
  deliveryId?: string;
  /** 1-500, default 100. */
  limit?: number;
  cursor?: string;
}

export interface ConnectionWebhookUrl {
  connection_id: string;
  provider_config_key: string;
  /** Null: the connection's webhooks go to the environment's URLs. */
  webhook_url: string | null;
}

/** Webhook settings of the environment (the secret key's), the delivery history, per-connection URLs. */
export function createEnvironmentApi(http: Http) {
  const urlPath = (connectionId: string) => `/connections/${encodeURIComponent(connectionId)}/webhook-url`;
  const listWebhookDeliveries = async (filter: DeliveriesFilter = {}): Promise<Page<WebhookDelivery>> =>
    (
      await http.json<Page<WebhookDelivery>>('GET', '/webhooks/deliveries', {
        query: {
          connection_id: filter.connectionId,
          provider_config_key: filter.providerConfigKey,
          type: filter.type,
          state: filter.state,
          delivery_id: filter.deliveryId,
          limit: filter.limit,
          cursor: filter.cursor,
        },
      })
    ).body;

  return {
    async getEnvironment(): Promise<EnvironmentSettings> {
      return (await http.json<{ data: EnvironmentSettings }>('GET', '/environment')).body.data;
    },
    /** Sets (or clears with null) the webhook URL and the secondary URL. */
    async updateEnvironment(patch: EnvironmentPatch): Promise<EnvironmentSettings> {
      return (await http.json<{ data: EnvironmentSettings }>('PATCH', '/environment', { body: patch })).body.data;
    },
    /** A new signing key for the next webhooks; the only answer that shows it whole: store it now. */
    async rotateWebhookSigningKey(): Promise<EnvironmentSettings> {
      return (await http.json<{ data: EnvironmentSettings }>('POST', '/environment/webhook-signing-key')).body.data;
    },
    /** One page of deliveries, newest first. */
    listWebhookDeliveries,
    /** Every page of deliveries matching `filter`, fetched lazily. */
    async *webhookDeliveryPages(filter: DeliveriesFilter = {}): AsyncGenerator<WebhookDelivery[], void, undefined> {
      let cursor = filter.cursor;
      for (;;) {
        const page = await listWebhookDeliveries({ ...filter, ...(cursor === undefined ? {} : { cursor }) });
        yield page.data;
        if (page.next_cursor === null) return;
        cursor = page.next_cursor;
      }
    },
    async getConnectionWebhookUrl(providerConfigKey: string, connectionId: string): Promise<ConnectionWebhookUrl> {
      return (
        await http.json<{ data: ConnectionWebhookUrl }>('GET', urlPath(connectionId), {
          query: { provider_config_key: providerConfigKey },
        })
      ).body.data;
    },
    /** Sends this connection's webhooks to its own URL instead of the environment's. */
    async setConnectionWebhookUrl(
      providerConfigKey: string,
      connectionId: string,
      input: ConnectionWebhookUrlInput,
    ): Promise<ConnectionWebhookUrl> {
      return (
        await http.json<{ data: ConnectionWebhookUrl }>('PUT', urlPath(connectionId), {
          query: { provider_config_key: providerConfigKey },
          body: input,
        })
      ).body.data;
    },
    /** Back to the environment's webhook URLs. */
    async deleteConnectionWebhookUrl(providerConfigKey: string, connectionId: string): Promise<ConnectionWebhookUrl> {
      return (
        await http.json<{ data: ConnectionWebhookUrl }>('DELETE', urlPath(connectionId), {
          query: { provider_config_key: providerConfigKey },
        })
      ).body.data;
    },
  };
}
