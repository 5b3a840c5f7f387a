import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real service (Redis, PostgreSQL) that a test can cut,
 * slow down and restore. Cut: every open connection is reset and new ones are reset on arrival,
 * as when the service's host goes away. Slow: every chunk the service sends back is held that
 * long first (a store under load, a slow link; `Infinity`: it answers nothing, as a hung host).
 * Throttle: what clients send passes at a given rate (a slow link, or a machine too busy to drain
 * a socket quickly), so a large batch meets backpressure.
 * Restore: connections pass again, and what was held is sent on.
 */
export async function startTcpCutter(target: { host: string; port: number }) {
  const open = new Set<Socket>();
  let cut = false;
  let delayMs = 0;
  /** Bytes a second clients' data passes at; 0: as fast as it comes. */
  let sendRate = 0;
  /** Chunks held by an endless delay, sent on at restore. */
  const held: (() => void)[] = [];
  const server = createServer((client) => {
    if (cut) return void client.resetAndDestroy();
    const upstream = createConnection(target);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    // After the pipe has passed the chunk on: held back for as long as the rate allows.
    client.on('data', (chunk: Buffer) => {
      if (sendRate === 0) return;
      client.pause();
      setTimeout(() => client.resume(), (chunk.length / sendRate) * 1000);
    });
    // Answers go through the delay in order: a later chunk never overtakes an earlier one.
    let last = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      if (delayMs === 0 && held.length === 0) {
        last = last.then(() => void client.write(chunk));
        return;
      }
      // Held from its arrival: a long answer in several chunks is late by `delayMs`, not by a multiple.
      const sendAt = performance.now() + delayMs;
      last = last.then(
        () =>
          new Promise<void>((resolve) => {
            const send = () => {
              if (!client.destroyed) client.write(chunk);
              resolve();
            };
            // Held until restore, unless restored meanwhile (a chunk queued behind a held one).
            if (sendAt === Infinity && delayMs === Infinity) held.push(send);
            else if (sendAt === Infinity) send();
            else setTimeout(send, Math.max(0, sendAt - performance.now()));
          }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    /** `url` with its host and port pointed at the cutter (a PostgreSQL URL, say). */
    through: (url: string) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    /** Resets every connection through the cutter, and every new one until `restore`. */
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    /** Holds every answer `ms` before passing it on (`Infinity`: until `restore`). */
    slow(ms: number) {
      delayMs = ms;
    },
    /** Passes what clients send at `bytesPerSecond` (0: unthrottled). */
    throttleSends(bytesPerSecond: number) {
      sendRate = bytesPerSecond;
    },
    restore() {
      cut = false;
      delayMs = 0;
      sendRate = 0;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const send of held.splice(0)) send();
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The service's default port when its URL names none. */
const defaultPorts: Record<string, number> = { 'redis:': 6379, 'postgres:': 5432, 'postgresql:': 5432 };

/** A cutter in front of the service at `url` (a Redis or PostgreSQL URL). */
export function startTcpCutterFor(url: string) {
  const { protocol, hostname, port } = new URL(url);
  return startTcpCutter({ host: hostname, port: Number(port || defaultPorts[protocol]) });
}
