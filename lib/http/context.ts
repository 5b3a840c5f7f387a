import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayState } from './state.js';

/**
 * What the edge (request id, error answer, request log), the secret-key check and the proxy read
 * and write of a request's context. Koa's context is one; the proxy lane's (lane.ts), which
 * serves `/proxy/*` without building Koa's, is the other.
 */
export interface HttpContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  state: GatewayState;
  /** `false`: the handler wrote the response itself (a proxied answer streams on). */
  respond?: boolean | undefined;
  /** The response status (Node's `statusCode`); setting it once headers are sent does nothing. */
  status: number;
  /** A JSON body to send when the handler returns (an error answer). */
  body: unknown;
  readonly method: string;
  /** The request path, without the query. */
  readonly path: string;
  /** Sets a response header; once headers are sent it does nothing. */
  set(field: string, value: string): void;
}

/** The path of an origin-form request target (`/a/b?c`): the part before `?`. */
export function pathBeforeQuery(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? url : url.slice(0, mark);
}
