import type { Socket } from 'node:net';

/**
 * Ends a provider connection whose request was abandoned. A reset (RST) rather than a close:
 * the provider learns at once that no one reads, and the gateway keeps no TIME_WAIT socket
 * per aborted call. TLS sockets cannot be reset from JavaScript; they are destroyed.
 */
export function dropConnection(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
