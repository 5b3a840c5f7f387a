// The webhooks feature's one door.
export { createWebhooks, type Webhooks, type WebhooksApi, type WebhookDeps } from './feature.js';
export type { WebhookOptions } from './options.js';
export {
  defaultDeliveryPolicy,
  decide,
  backoffDelay,
  parseRetryAfter,
  type DeliveryPolicy,
  type AttemptResult,
  type Verdict,
} from './policy.js';
export { signatureHeaders, hmacHeader, legacySignatureHeader } from './signing.js';
export type {
  WebhookEventInput,
  WebhookPayload,
  WebhookEventType,
  WebhookError,
  AuthEventInput,
  SyncEventInput,
  RecordsEventInput,
  ActionEventInput,
  ForwardEventInput,
} from './payloads.js';
export type { DeliveryRecord, AttemptRecord, DeliveryState } from './deliveries.js';
export type { SendResult } from './sender.js';
export type { DeliveryJob } from './delivery-job.js';
export type {
  WebhookRouting,
  WebhookRoutingRegistry,
  Routed,
  RoutingContext,
  InboundRequest,
  BodyVerifier,
  Verification,
} from './inbound/routing.js';
export { webhookChannels, type WebhookAttemptEvent, type WebhookEnqueuedEvent } from './diagnostics.js';
export { sealedWebhookSettings } from './settings.js';
export { connectionWebhookUrlSchema, environmentPatchSchema } from './schema.js';
