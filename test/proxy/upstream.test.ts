import { request as httpRequest } from 'node:http';
import t from 'tap';
import { devKey } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { proxySetup } from './helpers.js';

t.test('a provider that refuses the connection: 502 upstream_unreachable', async (t) => {
  const gone = await listen(() => {});
  await gone.close();
  const s = await proxySetup(t, { baseUrl: `${gone.url}/api` });
  const res = await s.proxy('GET', '/v1/x');
  t.equal(res.status, 502);
  t.equal(res.json.error.code, 'upstream_unreachable');
  t.match(res.json.error.message, 'ECONNREFUSED');
});

t.test('a provider that does not answer in time: 504 upstream_timeout, and its request is dropped', async (t) => {
  let closed!: () => void;
  const providerSawClose = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const s = await proxySetup(t, {
    respond: (_req, res) => {
      res.on('close', () => closed());
    },
    gateway: { proxy: { timeoutMs: 300 } },
  });
  const res = await s.proxy('GET', '/v1/slow');
  t.equal(res.status, 504);
  t.equal(res.json.error.code, 'upstream_timeout');
  await providerSawClose;
  t.pass('the provider saw the gateway give up');
});

t.test('a provider that drops the connection before answering: 502 upstream_error', async (t) => {
  const s = await proxySetup(t, {
    respond: (_req, res) => {
      res.socket?.destroy();
    },
  });
  const res = await s.proxy('GET', '/v1/x');
  t.equal(res.status, 502);
  t.equal(res.json.error.code, 'upstream_error');
  t.equal(s.provider.received.length, 1, 'not retried without Retries');
});

t.test("a provider that cuts its body short: the caller's response is cut short too", async (t) => {
  const s = await proxySetup(t, {
    respond: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write('only a part');
      setImmediate(() => res.socket?.destroy());
    },
  });
  const { port } = new URL(s.gw.url);
  const outcome = await new Promise<string>((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/proxy/v1/x',
        headers: { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' },
      },
      (res) => {
        t.equal(res.statusCode, 200, 'the status was already sent');
        res.on('data', () => {});
        res.on('end', () => resolve('complete'));
        res.on('aborted', () => resolve('aborted'));
        res.on('error', () => resolve('aborted'));
      },
    );
    req.on('error', () => resolve('aborted'));
    req.end();
  });
  t.equal(outcome, 'aborted', 'the caller does not get a truncated body presented as complete');
});
