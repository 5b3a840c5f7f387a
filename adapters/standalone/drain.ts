import type { Server } from 'node:http';

/** How long SIGTERM lets requests in flight finish before their connections are cut. */
export const defaultShutdownTimeoutMs = 25_000;
/** How often idle keep-alive connections are closed while draining. */
const sweepMs = 100;

/**
 * Stops accepting connections and lets the requests in flight finish, closing each
 * keep-alive connection as soon as it is idle; past `timeoutMs`, the connections still busy
 * are cut (a stalled provider must not hold the process). Resolves when the server is closed.
 */
export function drainServer(server: Server, timeoutMs: number): Promise<{ cut: boolean }> {
  return new Promise((resolve) => {
    let cut = false;
    const sweep = setInterval(() => server.closeIdleConnections(), sweepMs);
    const deadline = setTimeout(() => {
      cut = true;
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve({ cut });
    });
    server.closeIdleConnections();
  });
}
