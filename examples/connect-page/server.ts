/**
 * Runs the example customer page next to a running gateway:
 *   npm run build
 *   GATEWAY_URL=http://127.0.0.1:3003 SECRET_KEY=sk_… PORT=3010 node dist/examples/connect-page/server.js
 * then open http://127.0.0.1:3010/?integration=<unique key>.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createConnectPageHandler } from './handler.js';

// Compiled, this file sits in dist/examples/connect-page/; the SDK is built to dist/lib/frontend/.
const firstExisting = (...candidates: string[]) =>
  candidates.map((c) => fileURLToPath(new URL(c, import.meta.url))).find((p) => existsSync(p));
const sdkDir = firstExisting('../../lib/frontend/', '../../dist/lib/frontend/');
const publicDir = firstExisting('./public/', '../../../examples/connect-page/public/');

const port = Number(process.env.PORT ?? 3010);
const handler = createConnectPageHandler({
  gatewayUrl: process.env.SERVICE_BASE_URL ?? 'http://localhost:3003',
  secretKey: process.env.SERVICE_SECRET_KEY ?? '',
  pageOrigin: process.env.PAGE_ORIGIN ?? `http://127.0.0.1:${port}`,
  ...(publicDir ? { publicDir } : {}),
  sdkFile: (name) => (sdkDir ? readFile(sdkDir + name, 'utf8').catch(() => undefined) : Promise.resolve(undefined)),
});
createServer(handler).listen(port, '127.0.0.1', () => console.log(`connect page on http://127.0.0.1:${port}`));
