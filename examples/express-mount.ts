/**
 * Portico inside an Express app, under /api/portico, through the Express adapter.
 * Run: npm run build && PORT=4001 node dist/examples/express-mount.js
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { toExpress } from '../adapters/express/index.js';
import { createSqliteStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/index.js';

export async function startExpressExample(port = Number(process.env.PORT ?? 4001), dataDir = './data/express-example') {
  const storage = createSqliteStorage({ path: `${dataDir}/portico.db` });
  const gateway = await createGateway({
    environments: [{ name: 'dev', secretKey: process.env.SERVICE_SECRET_KEY ?? 'sk_example_express_0123456789' }],
    storage,
    encryptionKeys: process.env.SERVICE_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
    baseUrl: `http://localhost:${port}/api/portico`,
  });
  const app = express();
  // Mount Portico before any body parser so proxied bodies stream untouched.
  app.use('/api/portico', toExpress(gateway));
  app.use(express.json());
  app.get('/api/hello', (_req, res) => {
    res.json({ app: 'my express app' });
  });
  const server = createServer(app);
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
  const { url } = await startExpressExample();
  console.log(`Express app on ${url}; Portico mounted at ${url}/api/portico`);
}
