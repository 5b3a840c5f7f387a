/*
 * Run in a child process by provider-connections.test.ts, so that NODE_EXTRA_CA_CERTS (read at
 * start) can trust the test's self-signed certificate or not: a gateway proxies two calls to an
 * https provider on localhost and prints what each side saw, as one JSON line.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Test } from 'tap';
import { devKey, startGateway } from '../helpers/gateway.js';
import { apiKey, providerEntry, send } from './helpers.js';

export async function run(certFile: string, keyFile: string): Promise<void> {
  const servernames: (string | false | null)[] = [];
  const received: string[] = [];
  let connections = 0;
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    received.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ secure: true, url: req.url }));
  });
  server.on('secureConnection', (socket: TLSSocket) => servernames.push(socket.servername));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;

  const teardowns: (() => unknown)[] = [];
  const gw = await startGateway({ teardown: (fn: () => unknown) => teardowns.push(fn) } as unknown as Test, {
    providers: [providerEntry('secure-api', `https://localhost:${port}/api`)],
  });
  await gw.call('POST', '/integrations', { body: { unique_key: 'secure', provider: 'secure-api' } });
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'secure', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } },
  });
  const answers = [];
  for (const n of [1, 2]) {
    const res = await send(gw.url, 'GET', `/proxy/items/${n}`, {
      authorization: `Bearer ${devKey}`,
      'provider-config-key': 'secure',
      'connection-id': 'c1',
    });
    answers.push({ status: res.status, json: res.json });
  }
  const sockets = gw.gateway.proxy.sockets();
  for (const teardown of teardowns.reverse()) await teardown();
  server.closeAllConnections();
  server.close();
  console.log(JSON.stringify({ answers, servernames, connections, received, sockets }));
}
