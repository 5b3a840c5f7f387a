import type { GatewayEvent } from '../events/index.js';
import type { AuthEventInput } from './payloads.js';

const authTypes = [
  'connection.created',
  'connection.overridden',
  'connection.auth_failed',
  'connection.auth_recovered',
  'connection.deleted',
  'connection.auth_attempt_failed',
] as const;
export type ConnectionEvent = Extract<GatewayEvent, { type: (typeof authTypes)[number] }>;

/** The bus events that become auth webhooks (the bus may carry others). */
export const isConnectionEvent = (event: GatewayEvent): event is ConnectionEvent =>
  (authTypes as readonly string[]).includes(event.type);

/** The customer-facing auth webhook for a connection event of the gateway's bus. */
export function authEventFor(event: ConnectionEvent, authMode: string | undefined): AuthEventInput {
  const base = {
    type: 'auth' as const,
    connection_id: event.connection_id,
    provider_config_key: event.provider_config_key,
    provider: event.provider,
    ...(authMode ? { auth_mode: authMode } : {}),
  };
  switch (event.type) {
    case 'connection.created':
    case 'connection.overridden':
      return {
        ...base,
        operation: event.type === 'connection.created' ? 'creation' : 'override',
        success: true,
        source: event.operation,
        end_user: event.end_user,
      };
    case 'connection.auth_failed':
      return { ...base, operation: 'refresh', success: false, error: { code: event.code, message: event.message } };
    case 'connection.auth_recovered':
      return { ...base, operation: 'refresh', success: true };
    case 'connection.deleted':
      return { ...base, operation: 'deletion', success: true };
    case 'connection.auth_attempt_failed':
      // An end user's authorization that did not finish (denied consent, replayed state, a
      // refused code exchange): nothing was stored, the customer hears why.
      return {
        ...base,
        operation: 'creation',
        success: false,
        source: event.operation,
        end_user: event.end_user,
        error: {
          code: event.code,
          message: event.message,
          ...(event.provider_error ? { provider_error: event.provider_error } : {}),
        },
      };
  }
}
