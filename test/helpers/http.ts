import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Running {
  server: Server;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port 0. */
export async function listen(handler: RequestListener): Promise<Running> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A fake provider: records what it received and answers with `respond`. */
export async function fakeProvider(
  respond: (req: Received, res: ServerResponse) => void | Promise<void> = (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  },
) {
  const received: Received[] = [];
  const running = await listen(async (req, res) => {
    const entry: Received = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: await readBody(req),
    };
    received.push(entry);
    await respond(entry, res);
  });
  return { ...running, received };
}
