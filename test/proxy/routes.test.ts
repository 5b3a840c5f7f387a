import express from 'express';
import Koa from 'koa';
import mount from 'koa-mount';
import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { toExpress } from '../../adapters/express/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { devKey, testEncryptionKey } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { apiKey, providerEntry, proxySetup, send } from './helpers.js';

const echo = (req: { method: string; url: string; body: Buffer }, res: import('node:http').ServerResponse) => {
  res.statusCode = req.method === 'POST' ? 201 : 200;
  res.statusMessage = 'Provider Says OK';
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-provider', 'yes');
  res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
  res.end(
    req.method === 'HEAD'
      ? undefined
      : JSON.stringify({ method: req.method, url: req.url, body: req.body.toString('utf8') }),
  );
};

t.test("every method goes to base_url + path + query with the connection's credentials", async (t) => {
  const s = await proxySetup(t, { respond: echo });
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
    const hasBody = !['GET', 'HEAD', 'OPTIONS'].includes(method);
    const res = await s.proxy(method, '/v1/items/42?filter=a%20b&tag=x&tag=y', {
      headers: {
        'x-custom': 'kept',
        accept: 'application/json',
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
      },
      ...(hasBody ? { body: `{"m":"${method}"}` } : {}),
    });
    t.equal(res.status, method === 'POST' ? 201 : 200, `${method}: the provider's status`);
    t.equal(res.headers['x-provider'], 'yes', `${method}: the provider's headers come back`);
    t.same(res.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/'], `${method}: repeated headers come back repeated`);
    const got = s.provider.received.at(-1);
    t.equal(got?.method, method);
    t.equal(
      got?.url,
      '/api/v1/items/42?filter=a%20b&tag=x&tag=y',
      `${method}: path and query forwarded under the base path, bytes unchanged`,
    );
    t.equal(
      got?.headers.authorization,
      `Bearer ${apiKey}`,
      `${method}: the provider gets the connection's key, not the gateway's`,
    );
    t.equal(got?.headers['x-custom'], 'kept', `${method}: other caller headers are forwarded`);
    t.equal(got?.headers.host, new URL(s.provider.url).host, `${method}: Host is the provider's`);
    t.notOk(
      got?.headers['provider-config-key'] ?? got?.headers['connection-id'],
      `${method}: control headers stay at the gateway`,
    );
    if (hasBody) t.equal(got?.body.toString(), `{"m":"${method}"}`, `${method}: the body is forwarded`);
    if (method !== 'HEAD') t.equal(res.json.method, method, `${method}: the provider's body comes back`);
  }
});

t.test('hop-by-hop and control headers stay on their own hop', async (t) => {
  const s = await proxySetup(t, {
    respond: (_req, res) => {
      res.setHeader('connection', 'x-hop-response');
      res.setHeader('x-hop-response', 'dropped');
      res.setHeader('x-end-to-end', 'kept');
      res.write('part one, ');
      res.end('part two');
    },
  });
  const res = await s.proxy('GET', '/v1/x', {
    headers: {
      connection: 'x-hop-request',
      'x-hop-request': 'dropped',
      'proxy-authorization': 'Basic Zm9vOmJhcg==',
      te: 'trailers',
      retries: '0',
      decompress: 'false',
      paginate: 'false',
      'x-kept': 'yes',
    },
  });
  t.equal(res.status, 200);
  t.equal(res.body.toString(), 'part one, part two', 'a chunked provider body arrives whole');
  t.equal(res.headers['x-end-to-end'], 'kept');
  t.notOk(res.headers['x-hop-response'], 'headers the provider named in Connection are not returned');
  const got = s.provider.received[0]?.headers ?? {};
  t.equal(got['x-kept'], 'yes');
  for (const name of ['x-hop-request', 'proxy-authorization', 'te', 'retries', 'decompress', 'paginate'])
    t.notOk(got[name], `${name} not forwarded`);
  t.equal(got.connection, 'keep-alive', "the provider connection is the gateway's own keep-alive one");
});

t.test('missing or unknown integration and connection', async (t) => {
  const s = await proxySetup(t);
  const noKey = await s.proxy('GET', '/v1/x', { headers: { 'provider-config-key': '' } });
  t.equal(noKey.status, 400);
  t.equal(noKey.json.error.code, 'missing_provider_config_key');
  t.match(noKey.json.error.message, 'Provider-Config-Key');
  const noId = await s.proxy('GET', '/v1/x', { headers: { 'connection-id': '' } });
  t.equal(noId.status, 400);
  t.equal(noId.json.error.code, 'missing_connection_id');
  t.match(noId.json.error.message, 'Connection-Id');
  const unknownIntegration = await s.proxy('GET', '/v1/x', { headers: { 'provider-config-key': 'nope' } });
  t.equal(unknownIntegration.status, 404);
  t.equal(unknownIntegration.json.error.code, 'unknown_integration');
  const unknownConnection = await s.proxy('GET', '/v1/x', { headers: { 'connection-id': 'nope' } });
  t.equal(unknownConnection.status, 404);
  t.equal(unknownConnection.json.error.code, 'unknown_connection');
  const badRetries = await s.proxy('GET', '/v1/x', { headers: { retries: '99' } });
  t.equal(badRetries.status, 400);
  t.match(badRetries.json.error.message, 'retries');
  const noSecret = await s.proxy('GET', '/v1/x', { headers: { authorization: '' } });
  t.equal(noSecret.status, 401);
  const otherEnv = await s.proxy('GET', '/v1/x', {
    headers: { authorization: 'Bearer sk_test_prod_0123456789abcdef' },
  });
  t.equal(otherEnv.status, 404, 'a connection of another environment is not found');
  t.equal(s.provider.received.length, 0, 'the provider heard nothing');
});

t.test("the provider's error responses pass through unchanged", async (t) => {
  const s = await proxySetup(t, {
    respond: (req, res) => {
      if (req.url.includes('missing')) {
        res.writeHead(404, 'Not Here', {
          'content-type': 'application/json',
          'x-request-cost': '3',
          'portico-error': 'unknown_connection',
        });
        res.end('{"message":"Not Found","documentation_url":"https://example.com"}');
      } else {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '120' });
        res.end('maintenance');
      }
    },
  });
  const missing = await s.proxy('GET', '/v1/missing');
  t.equal(missing.status, 404);
  t.equal(missing.body.toString(), '{"message":"Not Found","documentation_url":"https://example.com"}');
  t.equal(missing.headers['x-request-cost'], '3');
  t.equal(missing.headers['portico-error'], undefined, 'a provider cannot pose as the gateway with Portico-Error');
  const down = await s.proxy('GET', '/v1/down');
  t.equal(down.status, 503);
  t.equal(down.body.toString(), 'maintenance');
  t.equal(down.headers['retry-after'], '120');
});

async function mountedGateway(baseUrl: string, providerUrl: string) {
  const storage = createMemoryStorage();
  const gateway = await createGateway({
    environments: [{ name: 'dev', secretKey: devKey }],
    storage,
    encryptionKeys: testEncryptionKey,
    baseUrl,
    logger: createLogger({ level: 'silent' }),
    providers: [providerEntry('fake-api', providerUrl)],
  });
  await gateway.integrations.create('dev', { unique_key: 'fake', provider: 'fake-api' });
  await gateway.connections.upsert(
    'dev',
    { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } },
    'import',
  );
  return { gateway, storage };
}

const control = { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' };

t.test(
  'mounted under a prefix with koa-mount, and in Express behind express.json() and express.urlencoded()',
  async (t) => {
    const s = await proxySetup(t, { respond: echo });
    const koaGw = await mountedGateway('http://127.0.0.1/portico', s.provider.url);
    const app = new Koa();
    app.use(mount('/portico', koaGw.gateway.middleware));
    const koaServer = await listen(app.callback());
    const expressGw = await mountedGateway('http://127.0.0.1/api/portico', s.provider.url);
    const host = express();
    host.use(express.json());
    host.use(express.urlencoded({ extended: false }));
    host.use('/api/portico', toExpress(expressGw.gateway));
    const expressServer = await listen(host);
    t.teardown(async () => {
      await koaServer.close();
      await expressServer.close();
      await koaGw.gateway.close();
      await expressGw.gateway.close();
    });

    const viaKoa = await send(koaServer.url, 'GET', '/portico/proxy/v2/things?q=1', control);
    t.equal(viaKoa.status, 200);
    t.equal(s.provider.received.at(-1)?.url, '/v2/things?q=1', 'the mount prefix is not forwarded');
    const viaExpress = await send(
      expressServer.url,
      'POST',
      '/api/portico/proxy/v2/things',
      { ...control, 'content-type': 'application/json' },
      '{"name":"x"}',
    );
    t.equal(viaExpress.status, 201);
    t.equal(s.provider.received.at(-1)?.url, '/v2/things');
    t.same(
      JSON.parse(s.provider.received.at(-1)?.body.toString() ?? ''),
      { name: 'x' },
      'a body Express already parsed is still forwarded',
    );
    const form = await send(
      expressServer.url,
      'POST',
      '/api/portico/proxy/v2/form',
      { ...control, 'content-type': 'application/x-www-form-urlencoded' },
      'a=1&b=two+words',
    );
    t.equal(form.status, 201);
    t.equal(
      s.provider.received.at(-1)?.body.toString(),
      'a=1&b=two+words',
      'a form Express already parsed is encoded again',
    );
  },
);
