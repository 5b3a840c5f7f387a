import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The longest the exchange may take; past it the start goes on without it. */
const deadlineMs = 2_000;

/**
 * One HTTP exchange over loopback inside the process, on a server and a keep-alive client of
 * its own, before the gateway's server takes its first request: Node's server-side request,
 * response and socket objects are then first made by a plain exchange, not by whatever the
 * first callers send (in the bench, the setup calls through the HTTP API with `fetch`).
 *
 * Why (bench/README.md, session 25): standalone servers set up through their HTTP API ran
 * their proxied calls at 1.15–1.4 × the CPU of the bare forwarder, most of them at the top of
 * that, against 1.05–1.2 × for the same servers after this exchange (two runs of 4 servers of
 * each, interleaved turns, Node 20, 1 KiB). The slow ones spent their extra time in V8's
 * inline-cache misses, map migrations in Node's `OutgoingMessage` constructor and dictionary
 * inserts; one exchange was enough, and
 * it made no difference when run before the gateway's modules were loaded. Which first object
 * decides it was not pinned down.
 *
 * Resolves when the exchange is done, failed or past its deadline (the start never waits
 * longer); leaves no server, socket or timer behind.
 */
export async function settleHttpShapes(): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    // The signal ends a stalled exchange as an error, so nothing settles after this returns.
    await new Promise<void>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/', agent, signal: AbortSignal.timeout(deadlineMs) },
        (res) => {
          res.resume();
          res.once('close', () => resolve());
        },
      );
      req.once('error', reject);
      req.end();
    });
  } catch {
    // An optimisation only: a loopback that refuses or stalls is no reason to stop the start.
  } finally {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  }
}
