/*
 * The far ends of the aborted-calls test, on their own thread so the gateway under test gets
 * the main thread to itself: a provider that holds every request open, and callers that walk
 * away at three points of a call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { listen } from '../helpers/http.js';

type Scenario = 'mid-response' | 'before-response' | 'mid-upload';
const scenarios: Scenario[] = ['mid-response', 'before-response', 'mid-upload'];

const arrived = new Map<string, () => void>();
const state = { aborted: 0, open: 0 };

/**
 * Answers `mid-response` calls with headers and a first chunk, the others not at all, and counts
 * the requests whose connection closed before it finished answering: each of those is an
 * aborted call the gateway passed on.
 */
const provider = await listen((req: IncomingMessage, res: ServerResponse) => {
  state.open++;
  res.on('close', () => {
    state.open--;
    if (!res.writableFinished) state.aborted++;
  });
  req.on('error', () => {});
  req.resume();
  if (req.headers['x-scenario'] === 'mid-response') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.alloc(16 * 1024, 1));
  }
  arrived.get(String(req.headers['x-call']))?.();
});

interface RunOrder {
  port: number;
  secretKey: string;
  from: number;
  count: number;
  parallel: number;
}

/**
 * One call that the caller abandons at the point its scenario names, by a reset or a close.
 * Raw sockets with a prebuilt request: the callers' side stays cheap, the gateway does the work.
 */
function abandonedCall(order: RunOrder, n: number) {
  const scenario = scenarios[n % scenarios.length] as Scenario;
  return new Promise<void>((resolve) => {
    const id = String(n);
    const upload = scenario === 'mid-upload';
    const head =
      `${upload ? 'POST' : 'GET'} /proxy/v1/hold/${n} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${order.secretKey}\r\n` +
      `Provider-Config-Key: fake\r\nConnection-Id: c1\r\nX-Call: ${id}\r\nX-Scenario: ${scenario}\r\n` +
      (upload ? 'Content-Length: 100000\r\n\r\n' : '\r\n');
    const socket = connect(order.port, '127.0.0.1');
    let done = false;
    const abandon = () => {
      if (done) return;
      done = true;
      arrived.delete(id);
      // Callers leave both ways: a reset (a crash, a killed process) or a close.
      if (n % 2 === 0) socket.resetAndDestroy();
      else socket.destroy();
      resolve();
    };
    socket.on('error', () => {});
    if (scenario === 'mid-response') socket.once('data', abandon);
    else arrived.set(id, abandon);
    socket.write(upload ? head + 'x'.repeat(1000) : head);
  });
}

async function run(order: RunOrder) {
  let next = order.from;
  const end = order.from + order.count;
  await Promise.all(
    Array.from({ length: order.parallel }, async () => {
      while (next < end) await abandonedCall(order, next++);
    }),
  );
}

const port = parentPort;
if (!port) throw new Error('abort-worker runs as a worker thread');
port.on('message', async (message: { type: 'run'; order: RunOrder } | { type: 'state' } | { type: 'close' }) => {
  if (message.type === 'run') {
    await run(message.order);
    port.postMessage({ type: 'ran' });
  } else if (message.type === 'state') {
    const connections = await new Promise<number>((resolve) => provider.server.getConnections((_e, n) => resolve(n)));
    port.postMessage({ type: 'state', ...state, connections });
  } else {
    await provider.close();
    port.close();
  }
});
port.postMessage({ type: 'provider', url: provider.url });
