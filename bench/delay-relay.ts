import { createConnection, createServer, type Socket } from 'node:net';

export interface DelayRelay {
  /** The relay's port on 127.0.0.1. */
  port: number;
  close(): Promise<void>;
}

/**
 * A TCP relay on 127.0.0.1 that holds every chunk `delayMs` before passing it on, each way: a store
 * across a network, on one machine. Chunks keep their order (timers of one duration fire in the
 * order set). For benches only: no backpressure, and either side closing closes both.
 */
export async function startDelayRelay(target: { host: string; port: number }, delayMs: number): Promise<DelayRelay> {
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMs));
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = createConnection(target);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('relay: no address');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
