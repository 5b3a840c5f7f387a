import type { IncomingMessage, ServerResponse } from 'node:http';

/** The part of a gateway the adapter needs. */
export interface Mountable {
  callback(): (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

type Next = (error?: unknown) => void;

/**
 * Mounts the gateway in an Express app: `app.use('/portico', toExpress(gateway))`.
 * Express strips the mount path from `req.url`, which is what the gateway routes on.
 * Mount it before body parsers, or leave them off its path: the proxy streams raw bodies
 * (JSON routes also accept a body Express already parsed).
 */
export function toExpress(gateway: Mountable) {
  const handle = gateway.callback();
  return function portico(req: IncomingMessage, res: ServerResponse, next: Next): void {
    Promise.resolve(handle(req, res)).catch(next);
  };
}
