import type { EndUser } from '../connections/index.js';

/** Things that happen inside the gateway that other features (webhooks, logs) react to. */
export type GatewayEvent =
  | {
      type: 'connection.created' | 'connection.overridden';
      environment: string;
      provider_config_key: string;
      connection_id: string;
      provider: string;
      end_user: EndUser | null;
      operation: 'import' | 'oauth' | 'connect';
    }
  | {
      type: 'connection.deleted';
      environment: string;
      provider_config_key: string;
      connection_id: string;
      provider: string;
    }
  | {
      type: 'connection.auth_failed';
      environment: string;
      provider_config_key: string;
      connection_id: string;
      provider: string;
      code: string;
      message: string;
    }
  | {
      type: 'connection.auth_recovered';
      environment: string;
      provider_config_key: string;
      connection_id: string;
      provider: string;
    }
  /** An end user's authorization attempt (connect link, OAuth callback, app setup, API key form) failed; nothing was stored. */
  | {
      type: 'connection.auth_attempt_failed';
      environment: string;
      provider_config_key: string;
      provider: string;
      connection_id: string | null;
      end_user: EndUser | null;
      operation: 'oauth' | 'connect';
      code: string;
      message: string;
      provider_error?: { error: string; description: string };
    };

export type GatewayEventType = GatewayEvent['type'];
type Handler = (event: GatewayEvent) => void | Promise<void>;

export interface EventBus {
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(handler: Handler): () => void;
  /** Hands the event to every subscriber and waits for them; a failing subscriber is reported, not thrown. */
  publish(event: GatewayEvent): Promise<void>;
}

export function createEventBus(onError: (error: unknown, event: GatewayEvent) => void): EventBus {
  const handlers = new Set<Handler>();
  return {
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async publish(event) {
      await Promise.all(
        [...handlers].map(async (handler) => {
          try {
            await handler(event);
          } catch (error) {
            onError(error, event);
          }
        }),
      );
    },
  };
}
