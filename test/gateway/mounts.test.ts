import express from 'express';
import Koa from 'koa';
import mount from 'koa-mount';
import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { toExpress } from '../../adapters/express/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { listen } from '../helpers/http.js';
import { devKey, testEncryptionKey } from '../helpers/gateway.js';

async function gateway(baseUrl: string) {
  const storage = createMemoryStorage();
  const gw = await createGateway({
    environments: [{ name: 'dev', secretKey: devKey }],
    storage,
    encryptionKeys: testEncryptionKey,
    baseUrl,
    logger: createLogger({ level: 'silent' }),
  });
  return { gw, storage };
}

const auth = { authorization: `Bearer ${devKey}` };

t.test('standalone: the stack on a plain node server', async (t) => {
  const { gw, storage } = await gateway('http://127.0.0.1');
  const server = await listen(gw.callback());
  t.teardown(async () => {
    await server.close();
    await storage.close();
  });
  const res = await fetch(`${server.url}/providers/github`, { headers: auth });
  t.equal(res.status, 200);
  t.equal((await res.json()).data.name, 'github');
});

t.test("koa: mounted under a prefix next to the host app's own routes", async (t) => {
  const { gw, storage } = await gateway('http://127.0.0.1/portico');
  const app = new Koa();
  app.use(mount('/portico', gw.middleware));
  app.use((ctx) => {
    ctx.body = { host: 'own route' };
  });
  const server = await listen(app.callback());
  t.teardown(async () => {
    await server.close();
    await storage.close();
  });

  const providers = await fetch(`${server.url}/portico/providers`, { headers: auth });
  t.equal(providers.status, 200);
  t.ok((await providers.json()).data.length > 60, 'catalog served under the prefix');
  const own = await fetch(`${server.url}/elsewhere`);
  t.same(await own.json(), { host: 'own route' }, 'host routes untouched');
  const denied = await fetch(`${server.url}/portico/providers`);
  t.equal(denied.status, 401);
  t.equal((await denied.json()).error.code, 'unauthorized');
  const missing = await fetch(`${server.url}/portico/nope`, { headers: auth });
  t.equal(missing.status, 404);
  t.equal((await missing.json()).error.code, 'unknown_route');
});

t.test('express: mounted through the adapter, also behind express.json()', async (t) => {
  const { gw, storage } = await gateway('http://127.0.0.1/api/portico');
  const app = express();
  app.use(express.json());
  app.use('/api/portico', toExpress(gw));
  app.get('/api/own', (_req, res) => {
    res.json({ host: 'express' });
  });
  const server = await listen(app);
  t.teardown(async () => {
    await server.close();
    await storage.close();
  });

  const res = await fetch(`${server.url}/api/portico/providers/microsoft`, { headers: auth });
  t.equal(res.status, 200);
  t.equal((await res.json()).data.name, 'microsoft');
  const created = await fetch(`${server.url}/api/portico/integrations`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      unique_key: 'gh',
      provider: 'github',
      credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret-value-123', scopes: ['repo'] },
    }),
  });
  t.equal(created.status, 201, 'a JSON body express already parsed is accepted');
  const body = await created.json();
  t.equal(body.data.callback_url, 'http://127.0.0.1/api/portico/oauth/callback');
  const own = await fetch(`${server.url}/api/own`);
  t.same(await own.json(), { host: 'express' });
});

t.test(
  'express: proxied answers keep repeated headers and carry the request id, though Express set a header first',
  async (t) => {
    const provider = await listen((_req, res) => {
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      res.setHeader('content-type', 'text/plain');
      res.end('from the provider');
    });
    const storage = createMemoryStorage();
    const gw = await createGateway({
      environments: [{ name: 'dev', secretKey: devKey }],
      storage,
      encryptionKeys: testEncryptionKey,
      baseUrl: 'http://127.0.0.1/api/portico',
      logger: createLogger({ level: 'silent' }),
      providers: [
        {
          name: 'cookie-jar',
          display_name: 'Cookie jar',
          logo_url: 'https://example.com/logo.svg',
          categories: ['test'],
          auth_mode: 'API_KEY',
          docs: 'https://example.com/docs',
          proxy: { base_url: provider.url },
        },
      ],
    });
    await gw.integrations.create('dev', { unique_key: 'jar', provider: 'cookie-jar' });
    await gw.connections.upsert(
      'dev',
      { provider_config_key: 'jar', connection_id: 'c', credentials: { type: 'API_KEY', apiKey: 'k-123' } },
      'import',
    );
    const app = express();
    app.use('/api/portico', toExpress(gw));
    const server = await listen(app);
    t.teardown(async () => {
      await server.close();
      await provider.close();
      await gw.close();
      await storage.close();
    });

    const res = await fetch(`${server.url}/api/portico/proxy/items`, {
      headers: { ...auth, 'provider-config-key': 'jar', 'connection-id': 'c' },
    });
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-powered-by'), 'Express', 'Express had set its header before the gateway answered');
    t.same(
      res.headers.getSetCookie(),
      ['a=1; Path=/', 'b=2; Path=/'],
      "both of the provider's Set-Cookie headers arrive",
    );
    t.match(res.headers.get('x-request-id'), /^[0-9a-f]{16}-[0-9a-z]+$/, "the gateway's request id");
    t.equal(await res.text(), 'from the provider');
  },
);
