import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createLogger, type Logger } from '../../lib/http/logger.js';
import { devKey } from '../helpers/gateway.js';
import { apiKey, proxySetup } from './helpers.js';

// A per-process random prefix and a counter (lib/http/request-id.ts).
const generated = /^[0-9a-f]{16}-[0-9a-z]+$/;

t.test("proxied answers carry the gateway's request id; a provider's own passes through", async (t) => {
  const { proxy } = await proxySetup(t, {
    respond: (req, res) => {
      if (req.url.endsWith('/own-id')) res.setHeader('x-request-id', 'provider-req-77');
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    },
  });
  const plain = await proxy('GET', '/items');
  t.equal(plain.status, 200);
  t.match(plain.headers['x-request-id'], generated, 'a generated id');
  const again = await proxy('GET', '/items');
  t.not(again.headers['x-request-id'], plain.headers['x-request-id'], 'each call gets its own');
  const echoed = await proxy('GET', '/items', { headers: { 'x-request-id': 'caller-trace.42' } });
  t.equal(echoed.headers['x-request-id'], 'caller-trace.42', "the caller's id, when well-formed, is echoed");
  const unsafe = await proxy('GET', '/items', { headers: { 'x-request-id': 'has spaces and ; semicolons' } });
  t.match(unsafe.headers['x-request-id'], generated, 'a malformed caller id is replaced');
  const own = await proxy('GET', '/own-id');
  t.equal(own.headers['x-request-id'], 'provider-req-77', "the provider's header is the provider's");
  const refused = await proxy('GET', '/items', { headers: { 'provider-config-key': 'nope' } });
  t.equal(refused.status, 404);
  t.equal(refused.json.error.code, 'unknown_integration');
  t.match(refused.headers['x-request-id'], generated, "the gateway's own errors on the proxy path carry one too");
  const paged = await proxy('GET', '/items', { headers: { paginate: 'true' } });
  t.equal(paged.status, 400, 'no pagination settings for this provider');
  t.match(paged.headers['x-request-id'], generated);
});

t.test("a proxied call is logged once its body has ended, with the provider's status", async (t) => {
  const lines: Record<string, unknown>[] = [];
  const { proxy } = await proxySetup(t, {
    gateway: { logger: createLogger({ level: 'info', write: (line) => lines.push(JSON.parse(line)) }) },
    respond: async (_req, res) => {
      res.writeHead(201, { 'content-type': 'text/plain' });
      res.write('first part, ');
      await sleep(150);
      res.end('last part');
    },
  });
  const answer = await proxy('GET', '/slow');
  t.equal(answer.body.toString(), 'first part, last part');
  await sleep(20);
  const logged = lines.filter((l) => l.msg === 'request' && l.path === '/proxy/slow');
  t.equal(logged.length, 1, 'one line');
  t.equal(logged[0]?.status, 201, "the provider's status");
  t.ok(
    (logged[0]?.duration_ms as number) >= 140,
    `the duration covers the whole body (${String(logged[0]?.duration_ms)} ms)`,
  );
  t.equal(logged[0]?.environment, 'dev');
  t.equal(logged[0]?.integration, 'fake', 'which integration');
  t.equal(logged[0]?.connection, 'c1', 'which connection');
  t.match(logged[0]?.provider_host, /^127\.0\.0\.1:\d+$/, 'which provider host');
  t.equal(logged[0]?.provider_status, 201, 'what the provider answered');
  t.ok(
    typeof logged[0]?.upstream_ms === 'number' &&
      (logged[0]?.upstream_ms as number) < (logged[0]?.duration_ms as number),
    "the provider's time to answer (headers), within the whole call",
  );
  t.notMatch(JSON.stringify(lines), devKey, 'no secret key in any line');
  t.notMatch(JSON.stringify(lines), apiKey, 'no provider credential in any line');
});

t.test('a logger without enabled() gets every request line; a silent one builds none', async (t) => {
  const seen: string[] = [];
  const plain: Logger = {
    debug: () => {},
    info: (message) => seen.push(message),
    warn: () => {},
    error: () => {},
  };
  const { proxy } = await proxySetup(t, { gateway: { logger: plain } });
  await proxy('GET', '/items');
  await sleep(20);
  t.ok(seen.includes('request'), 'a custom logger is taken to write info');
  const silent = createLogger({ level: 'silent' });
  t.equal(silent.enabled?.('error'), false, 'silent writes nothing');
  const warn = createLogger({ level: 'warn', write: () => {} });
  t.same(
    [warn.enabled?.('debug'), warn.enabled?.('info'), warn.enabled?.('warn'), warn.enabled?.('error')],
    [false, false, true, true],
    'levels at and above the threshold',
  );
});
