import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { readBody, type Received } from '../helpers/http.js';
import { buildStandalone } from './build-standalone.js';
import { waitFor } from './helpers.js';

const secretKey = 'sk_crash_test_0123456789abcdef';
const signingKey = 'whsk_crash_test_0123456789abcdef';

/** A port nothing listens on (yet): taken from the OS, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The standalone server as a child process; `listening` resolves with its URL. */
function startServer(main: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const listening = () =>
    waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output}`);
        // The banner names the public address, then the interface it listens on.
        const where = /listening on http:\/\/localhost:\d+ \(interface (127\.0\.0\.1:\d+)/.exec(output)?.[1];
        return where === undefined ? undefined : `http://${where}`;
      },
      'the standalone server to listen',
      20_000,
    );
  return { child, listening };
}

const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

t.test('events accepted before a crash (SIGKILL) are all delivered after the restart', async (t) => {
  const dir = t.testdir();
  const main = buildStandalone(join(dir, 'build'));
  const receiverPort = await freePort();
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICE_STORE_URL: `sqlite://${join(dir, 'data', 'portico.db')}`,
    SERVICE_SECRET_KEY: secretKey,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/hooks`,
    SERVICE_WEBHOOK_SIGNING_KEY: signingKey,
    LOG_LEVEL: 'error',
  };
  const call = (url: string, method: string, path: string, body?: unknown) =>
    fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  // First life: the receiver is down; ten connections are imported (ten auth events accepted).
  const first = startServer(main, env);
  t.teardown(() => kill(first.child));
  const firstUrl = await first.listening();
  t.equal((await call(firstUrl, 'POST', '/integrations', { unique_key: 'stripe', provider: 'stripe' })).status, 201);
  const ids = Array.from({ length: 10 }, (_, i) => `conn-${i}`);
  for (const id of ids) {
    const res = await call(firstUrl, 'POST', '/connections', {
      provider_config_key: 'stripe',
      connection_id: id,
      credentials: { type: 'API_KEY', apiKey: 'k' },
    });
    t.equal(res.status, 201, `import ${id}`);
  }
  await kill(first.child);
  t.equal(first.child.signalCode, 'SIGKILL', 'killed, no graceful shutdown');

  // Second life on the same database; the receiver comes back as it starts (before its worker
  // can make an attempt, so the pending events need no extra retry round to arrive).
  const second = startServer(main, env);
  t.teardown(() => kill(second.child));
  const received: Received[] = [];
  const hook = createServer(async (req, res) => {
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: await readBody(req) });
    res.end('ok');
  });
  await new Promise<void>((resolve) => hook.listen(receiverPort, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        hook.close(() => resolve());
        hook.closeAllConnections();
      }),
  );
  const secondUrl = await second.listening();

  // Retries follow the spec's defaults here (5 s after a failed attempt), hence the deadline.
  await waitFor(() => received.length >= ids.length, 'every event after the restart', 60_000);
  const payloads = received.map((r) => JSON.parse(r.body.toString('utf8')));
  t.same(payloads.map((p) => p.connection_id).sort(), ids, 'one creation event per imported connection');
  t.ok(
    payloads.every((p) => p.type === 'auth' && p.operation === 'creation'),
    'auth creation events',
  );
  t.equal(
    new Set(payloads.map((p) => p.delivery_id)).size,
    ids.length,
    'no event twice (the receiver was down, so no attempt had landed before)',
  );
  t.ok(
    received.every(
      (r) => r.headers['x-service-hmac-sha256'] === createHmac('sha256', signingKey).update(r.body).digest('hex'),
    ),
    'signed with SERVICE_WEBHOOK_SIGNING_KEY',
  );

  const history = await waitFor(
    async () => {
      const list = (await (await call(secondUrl, 'GET', '/webhooks/deliveries?type=auth')).json()) as {
        data: { state: string; attempts: unknown[] }[];
      };
      return list.data.every((d) => d.state === 'delivered') && list;
    },
    'the history to say delivered',
    10_000,
  );
  t.equal(history.data.length, ids.length, 'the history survived the crash too');
});
