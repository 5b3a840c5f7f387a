import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { GatewayError } from '../../lib/errors.js';
import { devKey } from '../helpers/gateway.js';
import { proxySetup, type ProxySetup } from '../proxy/helpers.js';

const cursorPages = {
  paginate: {
    type: 'cursor',
    cursor_path_in_response: 'next',
    cursor_name_in_request: 'cursor',
    response_path: 'items',
  },
};
/** The code a call fails with ('resolved' when it does not fail). */
const failure = async (call: Promise<unknown>) => {
  try {
    await call;
    return 'resolved';
  } catch (error) {
    return GatewayError.is(error) ? error.code : String(error);
  }
};

/** Short deadlines, so the test does not wait out the 30 s default. */
const idleMs = 400;

/** Streams `/proxy{path}`: status, headers, the bytes that came, and whether the body ended or was cut. */
function stream(s: ProxySetup, path: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(s.gw.url);
  return new Promise<{ status: number; bytes: number; ended: boolean; ms: number }>((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      {
        host: hostname,
        port,
        path: `/proxy${path}`,
        headers: {
          authorization: `Bearer ${devKey}`,
          'provider-config-key': 'fake',
          'connection-id': 'c1',
          ...headers,
        },
      },
      (res) => {
        let bytes = 0;
        let ended = false;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => {
          ended = true;
        });
        res.on('error', () => undefined);
        res.on('close', () => resolve({ status: res.statusCode ?? 0, bytes, ended, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

t.test('a provider that stalls after its headers', async (t) => {
  const s = await proxySetup(t, {
    proxy: cursorPages,
    gateway: { proxy: { bodyIdleTimeoutMs: idleMs } },
    respond: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[1,2');
      // …and nothing more, ever (the fake provider's teardown closes the socket).
    },
  });
  const streamed = await stream(s, '/stall');
  t.equal(streamed.status, 200, 'streamed: the headers went out');
  t.notOk(streamed.ended, 'the caller sees a cut, not a complete body');
  t.ok(streamed.ms < 10 * idleMs, `cut after ${Math.round(streamed.ms)} ms of silence`);

  const paged = await s.proxy('GET', '/stall', { headers: { paginate: 'true' } });
  t.equal(paged.status, 504, 'Paginate: true answers 504 instead of hanging');
  t.equal(paged.json?.error?.code, 'upstream_timeout');

  t.equal(
    await failure(
      s.gw.gateway.proxy.request({
        environment: 'dev',
        providerConfigKey: 'fake',
        connectionId: 'c1',
        path: '/stall',
        paginate: true,
      }),
    ),
    'upstream_timeout',
    'the programmatic paginate fails upstream_timeout',
  );
  t.equal(
    await failure(
      s.gw.gateway.proxy.request({ environment: 'dev', providerConfigKey: 'fake', connectionId: 'c1', path: '/stall' }),
    ),
    'upstream_timeout',
    'and so does a buffered call',
  );
});

t.test('a slow but steady provider body is not cut', async (t) => {
  const s = await proxySetup(t, {
    gateway: { proxy: { bodyIdleTimeoutMs: idleMs } },
    respond: async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // Longer in total than three idle periods, never silent for one.
      for (let i = 0; i < 8; i++) {
        res.write('x'.repeat(100));
        await new Promise((resolve) => setTimeout(resolve, idleMs / 4));
      }
      res.end();
    },
  });
  const streamed = await stream(s, '/slow');
  t.ok(streamed.ended, 'the body ends normally');
  t.equal(streamed.bytes, 800);
});

t.test('a provider that resets the connection mid-body', async (t) => {
  const s = await proxySetup(t, {
    proxy: cursorPages,
    respond: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"items":[1,2');
      setTimeout(() => res.socket?.resetAndDestroy(), 50);
    },
  });
  const streamed = await stream(s, '/reset');
  t.equal(streamed.status, 200);
  t.notOk(streamed.ended, 'streamed: the caller sees the cut');
  const paged = await s.proxy('GET', '/reset', { headers: { paginate: 'true' } });
  t.equal(paged.status, 502, 'Paginate: true answers 502');
  t.equal(paged.json?.error?.code, 'upstream_error');
});

t.test('a gzip bomb: the decoded size is capped', async (t) => {
  // 64 MiB of zeros, about 64 KiB on the wire.
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
  const s = await proxySetup(t, {
    proxy: cursorPages,
    gateway: { proxy: { maxDecodedBytes: 1024 * 1024 } },
    respond: (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(bomb.length),
      });
      res.end(bomb);
    },
  });
  t.ok(bomb.length < 256 * 1024, `the bomb is ${bomb.length} bytes`);
  const streamed = await stream(s, '/bomb', { decompress: 'true' });
  t.notOk(streamed.ended, 'streamed and decoded: cut short');
  t.ok(streamed.bytes <= 1024 * 1024 + 64 * 1024, `at most the cap went out (${streamed.bytes} bytes)`);
  const raw = await stream(s, '/bomb', { decompress: 'false' });
  t.ok(raw.ended && raw.bytes === bomb.length, 'not decoded: passed through as sent');
  const paged = await s.proxy('GET', '/bomb', { headers: { paginate: 'true' } });
  t.equal(paged.status, 502, 'a paginated page that decodes past the cap: 502');
  t.equal(paged.json?.error?.code, 'upstream_decoded_too_large');
  t.equal(
    await failure(
      s.gw.gateway.proxy.request({ environment: 'dev', providerConfigKey: 'fake', connectionId: 'c1', path: '/bomb' }),
    ),
    'upstream_decoded_too_large',
    'the programmatic API too',
  );
});

t.test('the decoded cap is set per integration', async (t) => {
  const body = gzipSync(Buffer.from(JSON.stringify({ items: Array.from({ length: 5000 }, (_, i) => i) })));
  const s = await proxySetup(t, {
    gateway: { proxy: { maxDecodedBytes: 1024, maxDecodedBytesByIntegration: { fake: 1024 * 1024 } } },
    respond: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(body);
    },
  });
  const res = await s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/big',
  });
  t.equal((res.body as { items: number[] }).items.length, 5000, "the integration's own cap applies");
});

t.test('paginated calls have a byte budget', async (t) => {
  const page = (n: number) =>
    JSON.stringify({ items: Array.from({ length: 1000 }, () => 'x'.repeat(90)), next: n < 50 ? String(n + 1) : null });
  const s = await proxySetup(t, {
    proxy: cursorPages,
    gateway: { proxy: { maxPaginatedBytes: 250_000 } },
    respond: (req, res) => {
      const n = Number(new URL(req.url, 'http://x').searchParams.get('cursor') ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(page(n));
    },
  });
  t.equal(
    await failure(
      s.gw.gateway.proxy.request({
        environment: 'dev',
        providerConfigKey: 'fake',
        connectionId: 'c1',
        path: '/pages',
        paginate: true,
      }),
    ),
    'upstream_pages_too_large',
    'the programmatic paginate stops at the budget',
  );
  t.ok(s.provider.received.length <= 4, `and asked for no page past it (${s.provider.received.length} pages)`);
  t.equal(
    await failure(
      s.gw.gateway.proxy.request({
        environment: 'dev',
        providerConfigKey: 'fake',
        connectionId: 'c1',
        path: '/pages',
        paginate: { maxBytes: 50_000 },
      }),
    ),
    'upstream_pages_too_large',
    'a caller (a script runtime) may pass a smaller budget',
  );
  const streamed = await stream(s, '/pages', { paginate: 'true' });
  t.equal(streamed.status, 200, 'the route streams the first pages…');
  t.notOk(streamed.ended, '…and cuts the array at the budget');
  t.ok(streamed.bytes < 300_000, `${streamed.bytes} bytes sent`);
  const small = await proxySetup(t, {
    proxy: cursorPages,
    gateway: { proxy: { maxPaginatedBytes: 10_000 } },
    respond: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(page(0));
    },
  });
  const first = await small.proxy('GET', '/pages', { headers: { paginate: 'true' } });
  t.equal(first.status, 502, 'a first page past the budget: 502');
  t.equal(first.json?.error?.code, 'upstream_pages_too_large');
});
