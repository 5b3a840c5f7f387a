import { z } from 'zod';
import { connectionId } from '../connections/index.js';
import { uniqueKey } from '../integrations/index.js';
import { webhookEventTypes } from './payloads.js';

const webhookUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const environmentPatchSchema = z
  .object({
    /** null clears the URL: no webhooks are sent, even if one is configured. */
    webhook_url: webhookUrl.nullable().optional(),
    webhook_secondary_url: webhookUrl.nullable().optional(),
  })
  .strict()
  .refine(
    (v) => v.webhook_url !== undefined || v.webhook_secondary_url !== undefined,
    'give webhook_url and/or webhook_secondary_url',
  );

export const connectionWebhookUrlSchema = z
  .object({
    webhook_url: webhookUrl,
  })
  .strict();

export const eventsQuery = z
  .object({
    /** The `seq` (or `next_after`) last processed; 0 or absent: from the oldest kept. */
    after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

export const deliveriesQuery = z
  .object({
    connection_id: connectionId.optional(),
    provider_config_key: uniqueKey.optional(),
    type: z.enum(webhookEventTypes).optional(),
    state: z.enum(['pending', 'delivered', 'failed', 'skipped']).optional(),
    delivery_id: z.uuid().optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().optional(),
  })
  .strict();
