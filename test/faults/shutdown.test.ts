import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { devKey } from '../helpers/gateway.js';
import { fakeProvider } from '../helpers/http.js';
import { waitFor } from '../helpers/wait.js';
import { providerEntry } from '../proxy/helpers.js';
import { startGatewayProcess, type GatewayProcess } from './standalone-process.js';

const shutdownMs = 2_000;

async function setUp(t: Test) {
  const provider = await fakeProvider(async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    if (req.url.endsWith('/stall')) return void res.write('partial');
    await new Promise((resolve) => setTimeout(resolve, 700));
    res.end('slow but complete');
  });
  t.teardown(() => provider.close());
  const gw = await startGatewayProcess(t, [providerEntry('fake-api', `${provider.url}/api`)], {
    SERVICE_SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
  });
  const api = (method: string, path: string, body: unknown) =>
    fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${devKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  t.equal((await api('POST', '/integrations', { unique_key: 'fake', provider: 'fake-api' })).status, 201);
  t.equal(
    (
      await api('POST', '/connections', {
        provider_config_key: 'fake',
        connection_id: 'c1',
        credentials: { type: 'API_KEY', apiKey: 'k' },
      })
    ).status,
    201,
  );
  return { provider, gw };
}

/** A proxied GET: status, body so far, and whether it ended or was cut. */
function proxied(gw: GatewayProcess, path: string) {
  const { hostname, port } = new URL(gw.url);
  return new Promise<{ status: number; body: string; ended: boolean }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        path: `/proxy${path}`,
        headers: { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' },
      },
      (res) => {
        let body = '';
        let ended = false;
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => {
          ended = true;
        });
        res.on('error', () => undefined);
        res.on('close', () => resolve({ status: res.statusCode ?? 0, body, ended }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

t.test('SIGTERM lets a call in flight finish, then the process exits cleanly', async (t) => {
  const { provider, gw } = await setUp(t);
  const call = proxied(gw, '/slow');
  await waitFor(() => provider.received.some((r) => r.url.endsWith('/slow')), 'the provider to get the call');
  const started = performance.now();
  gw.child.kill('SIGTERM');
  const done = await call;
  t.equal(done.status, 200);
  t.ok(done.ended, 'the call in flight completed');
  t.equal(done.body, 'slow but complete');
  const exit = await gw.exited;
  t.equal(exit.code, 0, 'exit code 0');
  t.ok(performance.now() - started < shutdownMs + 5_000, 'without waiting for the shutdown deadline');
  t.notMatch(gw.output(), /did not finish in time/, 'no forced exit');
});

t.test('SIGTERM with a provider that never finishes: cut at the deadline, clean exit', async (t) => {
  const { provider, gw } = await setUp(t);
  const call = proxied(gw, '/stall');
  await waitFor(() => provider.received.some((r) => r.url.endsWith('/stall')), 'the provider to get the call');
  const started = performance.now();
  gw.child.kill('SIGTERM');
  const done = await call;
  const cutAfter = performance.now() - started;
  t.equal(done.status, 200);
  t.notOk(done.ended, 'the stalled call is cut');
  t.ok(cutAfter >= shutdownMs - 200, `not before the deadline (${Math.round(cutAfter)} ms)`);
  const exit = await gw.exited;
  t.equal(exit.code, 0, 'exit code 0');
  t.ok(performance.now() - started < shutdownMs + 10_000, 'soon after the deadline');
  t.notMatch(gw.output(), /did not finish in time/, 'no forced exit');
  t.match(gw.output(), /requests still in flight at the deadline were cut/, 'the cut is logged');
});
