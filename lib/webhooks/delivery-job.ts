import type { WebhookEventType } from './payloads.js';

/** One body to one URL. Everything needed to send it and to record the attempts travels with it. */
export interface DeliveryJob {
  /** `<environment>.<seq>`: unique, and the key of the delivery's record. */
  id: string;
  environment: string;
  seq: number;
  delivery_id: string;
  type: WebhookEventType;
  connection_id: string | null;
  provider_config_key: string | null;
  target: 'primary' | 'secondary' | 'connection';
  url: string;
  /** The JSON body, exactly as it will be signed and sent. */
  body: string;
  created_at: string;
  /** Attempts the delivery had before this job (a re-send through the API): recorded numbers go on from there. */
  attempt_offset?: number;
}
