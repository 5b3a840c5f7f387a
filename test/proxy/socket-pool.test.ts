import { request as httpRequest, createServer, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest, createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import t, { type Test } from 'tap';
import { createSocketPool, type SocketPool } from '../../lib/proxy/socket-pool.js';
import { selfSignedLocalhost } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The proxy's keep-alive connections to providers (lib/proxy/socket-pool.ts), used the way the
 * proxy uses them: as the agent of Node's own `http.request` / `https.request`, against real
 * servers on 127.0.0.1 that count the connections they see.
 */

interface Provider {
  port: number;
  /** Every connection the server accepted, in order. */
  connections: Socket[];
  /** Connections the server has seen close. */
  closed: () => number;
}

async function serve(t: Test, server: Server): Promise<Provider> {
  const connections: Socket[] = [];
  let closed = 0;
  server.on('connection', (socket: Socket) => {
    connections.push(socket);
    socket.on('close', () => closed++);
  });
  // The provider never closes an idle connection on its own: whatever closes one here is the pool.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, connections, closed: () => closed };
}

const provider = (t: Test, handler: (res: ServerResponse, url: string) => void = (res) => res.end('ok')) =>
  serve(
    t,
    createServer((req, res) => handler(res, req.url ?? '')),
  );

interface Answer {
  status: number;
  body: string;
  reused: boolean;
  socket: Socket;
}

function get(
  pool: SocketPool,
  port: number,
  path = '/',
  extra: { https?: boolean; host?: string; rejectUnauthorized?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = extra.https ? httpsRequest : httpRequest;
    const req = send(
      {
        host: extra.host ?? '127.0.0.1',
        port,
        path,
        agent: pool as never,
        ...(extra.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: extra.rejectUnauthorized }),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, reused: req.reusedSocket, socket: req.socket as Socket }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function pool(t: Test, protocol: 'http:' | 'https:' = 'http:', maxFree = 256): SocketPool {
  const created = createSocketPool(protocol, maxFree);
  t.teardown(() => created.destroy());
  return created;
}

/** The pool's counts once Node has handed the last socket back (`free` comes a tick after the response's end). */
const settled = (p: SocketPool, idle: number) =>
  waitFor(
    () => {
      const counts = p.counts();
      return counts.active === 0 && counts.idle === idle ? counts : undefined;
    },
    `active 0, idle ${idle}; have ${JSON.stringify(p.counts())}`,
  );

t.test('calls one after another share one kept-alive connection', async (t) => {
  const server = await provider(t, (res, url) => res.end(`answer to ${url}`));
  const p = pool(t);
  const first = await get(p, server.port, '/a');
  t.same([first.status, first.body, first.reused], [200, 'answer to /a', false], 'the first call opens a connection');
  await settled(p, 1);
  const second = await get(p, server.port, '/b');
  await settled(p, 1);
  const third = await get(p, server.port, '/c');
  t.same([second.body, second.reused, third.body, third.reused], ['answer to /b', true, 'answer to /c', true]);
  t.equal(second.socket, first.socket, 'the same socket');
  t.equal(server.connections.length, 1, 'the provider saw one connection for three calls');
  t.same(await settled(p, 1), { active: 0, idle: 1 }, 'and it waits idle in the pool');
});

t.test('concurrent calls get a connection each; at most maxFreeSockets wait idle, the rest close', async (t) => {
  const waiting: ServerResponse[] = [];
  let seen = 0;
  const server = await provider(t, (res) => {
    // The first four are all in flight before any is answered.
    if (++seen > 4) return void res.end('ok');
    waiting.push(res);
    if (waiting.length === 4) for (const r of waiting.splice(0)) r.end('ok');
  });
  const p = pool(t, 'http:', 2);
  const calls = Array.from({ length: 4 }, () => get(p, server.port));
  await waitFor(() => p.counts().active === 4, 'four sockets in use');
  const answers = await Promise.all(calls);
  t.same(
    answers.map((a) => a.status),
    [200, 200, 200, 200],
  );
  t.equal(new Set(answers.map((a) => a.socket)).size, 4, 'four connections');
  t.same(await settled(p, 2), { active: 0, idle: 2 }, 'two kept');
  await waitFor(() => server.closed() === 2, 'the provider sees the other two close');
  // The next two concurrent calls take the two idle connections: no new one.
  const again = await Promise.all([get(p, server.port), get(p, server.port)]);
  t.same(
    again.map((a) => a.reused),
    [true, true],
  );
  t.equal(server.connections.length, 4, 'no fifth connection');
});

t.test('the most recently freed connection is taken first', async (t) => {
  let release: (() => void) | undefined;
  const server = await provider(t, (res, url) => {
    if (url === '/slow') release = () => res.end('slow');
    else res.end('fast');
  });
  const p = pool(t);
  const slow = get(p, server.port, '/slow');
  const fast = await get(p, server.port, '/fast');
  await waitFor(() => release, 'the slow call to arrive');
  release?.();
  const slowAnswer = await slow;
  await settled(p, 2);
  const next = await get(p, server.port, '/fast');
  t.equal(next.socket, slowAnswer.socket, 'the slow call ended last: its socket goes out next');
  t.not(next.socket, fast.socket);
});

t.test('a provider that answers Connection: close is not kept', async (t) => {
  const server = await provider(t, (res) => {
    res.setHeader('connection', 'close');
    res.end('bye');
  });
  const p = pool(t);
  const first = await get(p, server.port);
  t.equal(first.body, 'bye');
  await settled(p, 0);
  const second = await get(p, server.port);
  t.equal(second.reused, false, 'a new connection');
  t.equal(server.connections.length, 2);
  t.same(await settled(p, 0), { active: 0, idle: 0 });
});

t.test('an idle connection the provider closes or resets leaves the pool; the next call opens a new one', async (t) => {
  for (const how of ['end', 'reset'] as const) {
    const server = await provider(t);
    const p = pool(t);
    await get(p, server.port);
    await settled(p, 1);
    const [socket] = server.connections;
    if (how === 'end') socket?.end();
    else socket?.resetAndDestroy();
    t.same(await settled(p, 0), { active: 0, idle: 0 }, `${how}: the closed connection is gone from the pool`);
    const next = await get(p, server.port);
    t.same([next.status, next.reused], [200, false], `${how}: the next call succeeds on a new connection`);
    t.equal(server.connections.length, 2);
  }
});

t.test('a call cut short gives its connection up; calls to other hosts and ports use their own', async (t) => {
  let hold: ServerResponse | undefined;
  const server = await provider(t, (res, url) => {
    if (url === '/hang') {
      res.write('part');
      hold = res;
    } else res.end('ok');
  });
  const other = await provider(t);
  const p = pool(t);
  const req = httpRequest({ host: '127.0.0.1', port: server.port, path: '/hang', agent: p as never });
  req.on('error', () => {});
  await new Promise<void>((resolve) => req.on('response', () => resolve()).end());
  t.same(p.counts(), { active: 1, idle: 0 }, 'in use while the answer streams');
  req.destroy();
  await settled(p, 0);
  await waitFor(() => server.closed() === 1, 'the provider sees it close');
  hold?.destroy();
  const a = await get(p, server.port);
  const b = await get(p, other.port);
  t.same([a.reused, b.reused], [false, false], 'each port its own connection');
  t.same(await settled(p, 2), { active: 0, idle: 2 });
  const viaLocalhost = await get(p, server.port, '/', { host: 'localhost' });
  t.equal(viaLocalhost.reused, false, 'another host name is another pool entry, even for the same address');
});

t.test("destroy closes the idle connections, and one in use when it ran is closed once it's done", async (t) => {
  let hold: ServerResponse | undefined;
  const server = await provider(t, (res, url) => {
    if (url === '/slow') hold = res;
    else res.end('ok');
  });
  const p = pool(t);
  const slow = get(p, server.port, '/slow');
  await waitFor(() => hold, 'the slow call to arrive');
  // A second connection, while the first is busy: it waits idle once answered.
  await get(p, server.port);
  t.same(await waitFor(() => p.counts().idle === 1 && p.counts(), 'one idle'), { active: 1, idle: 1 });
  p.destroy();
  t.same(p.counts(), { active: 1, idle: 0 }, 'no idle socket left');
  await waitFor(() => server.closed() === 1, 'the provider sees the idle one close');
  hold?.end('late');
  t.equal((await slow).body, 'late', 'the call in flight still gets its answer');
  t.same(await settled(p, 0), { active: 0, idle: 0 }, 'and its socket is not kept');
  await waitFor(() => server.closed() === 2, 'the provider sees it close');
});

t.test(
  'https: certificates are verified, SNI names the host, and a new connection resumes the TLS session',
  async (t) => {
    const { cert, key } = selfSignedLocalhost(t);
    const servernames: (string | false | null)[] = [];
    const https = createHttpsServer({ cert, key }, (_req, res) => res.end('secure'));
    https.on('secureConnection', (socket: TLSSocket) => servernames.push(socket.servername));
    const server = await serve(t, https as unknown as Server);
    const p = pool(t, 'https:');

    // Not trusted here: a self-signed certificate is refused, and nothing stays open.
    const refused = await get(p, server.port, '/', { https: true, host: 'localhost' }).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code,
    );
    t.equal(refused, 'DEPTH_ZERO_SELF_SIGNED_CERT', 'verification is on by default');
    t.same(await settled(p, 0), { active: 0, idle: 0 });

    const insecure = { https: true, host: 'localhost', rejectUnauthorized: false };
    const first = await get(p, server.port, '/', insecure);
    t.same([first.status, first.body, first.reused], [200, 'secure', false]);
    t.equal(servernames.at(-1), 'localhost', 'SNI: the host name');
    await settled(p, 1);
    // Two at once: one takes the idle connection, the other opens a second with the cached session.
    const [a, b] = await Promise.all([get(p, server.port, '/', insecure), get(p, server.port, '/', insecure)]);
    const fresh = a.reused ? b : a;
    t.same([a.reused || b.reused, fresh.reused], [true, false], 'one reused, one new');
    t.equal((fresh.socket as TLSSocket).isSessionReused(), true, 'the new connection resumed the session');
    t.same(await settled(p, 2), { active: 0, idle: 2 });

    const byAddress = await get(p, server.port, '/', { https: true, rejectUnauthorized: false });
    t.equal(byAddress.status, 200);
    t.equal(servernames.at(-1), false, 'no SNI for an IP address');

    // Unverified connections wait idle; a request that verifies never gets one.
    const verified = await get(p, server.port, '/', { https: true, host: 'localhost' }).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code,
    );
    t.equal(verified, 'DEPTH_ZERO_SELF_SIGNED_CERT', 'a verifying request opens (and refuses) a connection of its own');
    t.same(await settled(p, 3), { active: 0, idle: 3 }, 'the unverified ones stay apart');
  },
);

t.test('an idle connection unused for a whole sweep period is closed', async (t) => {
  const server = await provider(t);
  const p = createSocketPool('http:', 256, 40);
  t.teardown(() => p.destroy());
  await get(p, server.port);
  t.same(await settled(p, 1), { active: 0, idle: 1 });
  await waitFor(() => server.closed() === 1, 'the provider sees the idle connection close');
  t.same(p.counts(), { active: 0, idle: 0 }, 'gone from the pool');
  const next = await get(p, server.port);
  t.same([next.status, next.reused], [200, false], 'the next call opens a new one');
});

t.test('a provider that announces Keep-Alive: timeout=1 is not kept; a longer timeout is', async (t) => {
  const server = await provider(t, (res, url) => {
    res.setHeader('keep-alive', url === '/short' ? 'timeout=1, max=100' : 'timeout=5');
    res.end('ok');
  });
  const p = pool(t);
  await get(p, server.port, '/short');
  // Decided when Node hands the socket back, not later.
  await waitFor(() => p.counts().active === 0, 'the socket handed back');
  t.same(p.counts(), { active: 0, idle: 0 }, 'timeout=1: closed');
  await waitFor(() => server.closed() === 1, 'the provider sees it close');
  await get(p, server.port, '/long');
  t.same(await settled(p, 1), { active: 0, idle: 1 }, 'timeout=5: kept');
});

t.test('a request destroyed before its socket is attached leaves nothing in the pool', async (t) => {
  const server = await provider(t);
  const p = pool(t);
  const req = httpRequest({ host: '127.0.0.1', port: server.port, path: '/', agent: p as never });
  req.on('error', () => {});
  req.destroy();
  t.same(await settled(p, 0), { active: 0, idle: 0 }, 'not kept: it never carried an answer');
  const next = await get(p, server.port);
  t.same([next.status, next.reused], [200, false], 'the next call opens its own connection');
});

t.test('with maxFreeSockets 0 nothing is kept', async (t) => {
  const server = await provider(t);
  const p = pool(t, 'http:', 0);
  await get(p, server.port);
  t.same(await settled(p, 0), { active: 0, idle: 0 });
  await waitFor(() => server.closed() === 1, 'the provider sees it close');
});
