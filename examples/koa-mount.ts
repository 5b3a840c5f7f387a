/**
 * Portico inside an existing Koa app, under /portico, next to the app's own routes.
 * Run: npm run build && PORT=4000 node dist/examples/koa-mount.js
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import mount from 'koa-mount';
import { createSqliteStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/index.js';

export async function startKoaExample(port = Number(process.env.PORT ?? 4000), dataDir = './data/koa-example') {
  const storage = createSqliteStorage({ path: `${dataDir}/portico.db` });
  const gateway = await createGateway({
    environments: [{ name: 'dev', secretKey: process.env.SERVICE_SECRET_KEY ?? 'sk_example_koa_0123456789' }],
    storage,
    encryptionKeys: process.env.SERVICE_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
    baseUrl: `http://localhost:${port}/portico`,
  });
  const app = new Koa();
  app.use(mount('/portico', gateway.middleware));
  app.use((ctx) => {
    ctx.body = { app: 'my koa app', portico: '/portico' };
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      await storage.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startKoaExample();
  console.log(`Koa app on ${url}; Portico mounted at ${url}/portico`);
}
