import t from 'tap';
import { moduleUrl, runModule } from '../helpers/child.js';
import { selfSignedLocalhost } from '../helpers/tls.js';
import { apiKey, proxySetup } from './helpers.js';

/**
 * The gateway's connections to providers as a user meets them: kept alive across calls, sent
 * again when a kept-alive connection turns out to be gone, and over TLS verified against
 * Node's trusted CAs (`NODE_EXTRA_CA_CERTS` adds one) (lib/proxy/socket-pool.ts, lib/proxy/exchange.ts).
 */

t.test(
  'a kept-alive connection the provider has dropped: a GET is sent again on a new one, a POST is not',
  async (t) => {
    const perConnection = new Map<unknown, number>();
    const arrivals: string[] = [];
    const { proxy, provider } = await proxySetup(t, {
      respond: (_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      },
    });
    // Every connection's second request is met with a reset: what a provider that closed an idle
    // connection just as the gateway reused it looks like from the gateway's side.
    provider.server.prependListener('request', (req) => {
      const seen = (perConnection.get(req.socket) ?? 0) + 1;
      perConnection.set(req.socket, seen);
      arrivals.push(`${req.method} ${seen === 2 ? 'reset' : 'answered'}`);
      if (seen === 2) req.socket.resetAndDestroy();
    });

    t.equal((await proxy('GET', '/items')).status, 200, 'first call');
    const again = await proxy('GET', '/items');
    t.equal(again.status, 200, 'the GET that met the dropped connection still gets its answer');
    t.equal(perConnection.size, 2, 'on a second connection');
    t.same(arrivals, ['GET answered', 'GET reset', 'GET answered']);

    const post = await proxy('POST', '/items', { body: '{"n":1}', headers: { 'content-type': 'application/json' } });
    t.equal(post.status, 502, 'a POST is never sent twice: it fails');
    t.equal(post.json?.error?.code, 'upstream_error');
    t.same(arrivals.slice(3), ['POST reset'], 'and it was sent once, on the kept-alive connection');
  },
);

const runHttps = (certFile: string, keyFile: string, trusted: boolean) =>
  runModule(
    `const { run } = await import(${moduleUrl('./https-provider-child.ts', import.meta.url)}); await run(${JSON.stringify(certFile)}, ${JSON.stringify(keyFile)});`,
    {
      limitMs: 60_000,
      env: {
        ...process.env,
        ...(trusted ? { NODE_EXTRA_CA_CERTS: certFile } : {}),
      },
    },
  );

t.test(
  'an https provider: a trusted certificate serves calls over one connection; an untrusted one is refused',
  async (t) => {
    const { certFile, keyFile } = selfSignedLocalhost(t);
    const [trusted, untrusted] = await Promise.all([
      runHttps(certFile, keyFile, true),
      runHttps(certFile, keyFile, false),
    ]);

    t.equal(trusted.code, 0, trusted.stderr);
    const seen = JSON.parse(trusted.stdout.trim().split('\n').at(-1) ?? '{}');
    t.same(
      seen.answers,
      [
        { status: 200, json: { secure: true, url: '/api/items/1' } },
        { status: 200, json: { secure: true, url: '/api/items/2' } },
      ],
      'both calls answered by the provider',
    );
    t.same(seen.received, [`GET /api/items/1 Bearer ${apiKey}`, `GET /api/items/2 Bearer ${apiKey}`]);
    t.same(seen.servernames, ['localhost'], 'one TLS connection, SNI naming the provider host');
    t.equal(seen.connections, 1);
    t.same(seen.sockets, { active: 0, idle: 1 }, 'kept alive for the next call');

    t.equal(untrusted.code, 0, untrusted.stderr);
    const refused = JSON.parse(untrusted.stdout.trim().split('\n').at(-1) ?? '{}');
    t.same(
      refused.answers.map((a: { status: number; json: { error: { code: string } } }) => [a.status, a.json.error.code]),
      [
        [502, 'upstream_error'],
        [502, 'upstream_error'],
      ],
      'a certificate the machine does not trust: the gateway answers 502',
    );
    t.match(refused.answers[0].json.error.message, /SELF_SIGNED/, 'naming why');
    t.same(refused.received, [], 'and nothing reached the provider');
    t.same(refused.sockets, { active: 0, idle: 0 }, 'no connection kept');
  },
);
