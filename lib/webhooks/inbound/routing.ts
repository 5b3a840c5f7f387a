import type { IncomingHttpHeaders } from 'node:http';
import type { Connection } from '../../connections/index.js';
import type { Integration } from '../../integrations/index.js';

export interface InboundRequest {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
}

/** The signature check of one body, fed chunk by chunk as the body streams in. */
export interface BodyVerifier {
  update(chunk: Buffer): void;
  /** After the last chunk: true when the signature matches the bytes. */
  verify(): boolean;
}

/** What can be decided before the body is read: a secret to check with and a well-formed signature header. */
export type Verification = { ok: true; verifier: BodyVerifier } | { ok: false; reason: string };

/** What routing may look up; small on purpose, so user scripts can get the same later. */
export interface RoutingContext {
  environment: string;
  integration: Integration;
  connectionsByInstallation(installationId: string): Promise<Connection[]>;
}

export interface Routed {
  /** The connections the payload is about; none: forwarded once with no connection. */
  connections: Connection[];
  /** Set when the payload says those connections can no longer be used (an uninstalled app). */
  authProblem?: { code: string; message: string } | undefined;
}

/**
 * A provider's inbound webhook handling, named by the catalog's `webhook_routing_script`:
 * signature check on the raw bytes as they stream in, then routing of the parsed payload to connections.
 */
export interface WebhookRouting {
  /** Called before the body is read: refuses without a secret or a well-formed signature header. */
  prepare(headers: IncomingHttpHeaders, integration: Integration): Verification;
  route(payload: unknown, request: InboundRequest, context: RoutingContext): Promise<Routed>;
  /** Provider headers passed on to the customer with the payload (lowercase). */
  forwardHeaders: readonly string[];
}

export type WebhookRoutingRegistry = ReadonlyMap<string, WebhookRouting>;
