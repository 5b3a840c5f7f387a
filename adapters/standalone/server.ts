import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type Gateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { storageFromUrl } from '../storage/index.js';
import type { StandaloneConfig } from './config.js';
import { devEncryptionKey } from './dev-encryption-key.js';
import { drainServer } from './drain.js';
import { readProvidersFile } from './providers-file.js';

export interface Standalone {
  server: Server;
  gateway: Gateway;
  url: string;
  /** Lets requests in flight finish (up to `shutdownTimeoutMs`), then stops the gateway and the store. */
  stop(): Promise<void>;
}

/** The standalone gateway: the same stack as the embedded one, on a plain Node http server. */
export async function startStandalone(config: StandaloneConfig, print: (line: string) => void = console.log): Promise<Standalone> {
  // First: a bad providers file stops the start before any storage is opened.
  const providers = config.providersFile ? readProvidersFile(config.providersFile) : [];
  const logger = createLogger({ level: config.logLevel });
  const storage = storageFromUrl(config.storeUrl);
  let encryptionKey = config.encryptionKey;
  if (!encryptionKey) {
    const sqlitePath = config.storeUrl.startsWith('sqlite://') ? config.storeUrl.slice('sqlite://'.length) : undefined;
    if (sqlitePath) {
      const dev = devEncryptionKey(sqlitePath);
      encryptionKey = dev.key;
      if (dev.created) print(`No SERVICE_ENCRYPTION_KEY: generated a development key in ${dev.file}. Set SERVICE_ENCRYPTION_KEY in production.`);
    } else {
      encryptionKey = randomBytes(32).toString('base64');
    }
  }
  const gateway = await createGateway({
    environments: [{
      name: 'dev',
      secretKey: config.secretKey,
      ...(config.webhookUrl ? { webhookUrl: config.webhookUrl } : {}),
      ...(config.webhookSecondaryUrl ? { webhookSecondaryUrl: config.webhookSecondaryUrl } : {}),
      ...(config.webhookSigningKey ? { webhookSigningKey: config.webhookSigningKey } : {}),
      ...(config.scriptLogLevel ? { scriptLogLevel: config.scriptLogLevel } : {}),
    }],
    storage,
    encryptionKeys: encryptionKey,
    baseUrl: config.baseUrl,
    providers,
    logger,
    ...(config.scriptsDir ? { scripts: { dir: config.scriptsDir } } : {}),
  });
  const server = createServer(gateway.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  print(`Portico gateway listening on ${url} (store: ${config.storeUrl}, environment: dev)`);
  if (config.secretKeyGenerated) {
    print(`No SERVICE_SECRET_KEY set: development secret key for this run: ${config.secretKey}`);
    print(`Try: curl -H "Authorization: Bearer ${config.secretKey}" ${url}/providers`);
  }
  let stopping: Promise<void> | undefined;
  return {
    server,
    gateway,
    url,
    stop() {
      stopping ??= (async () => {
        const { cut } = await drainServer(server, config.shutdownTimeoutMs);
        if (cut) logger.warn('shutdown: requests still in flight at the deadline were cut', { timeout_ms: config.shutdownTimeoutMs });
        await gateway.close();
        await storage.close();
      })();
      return stopping;
    },
  };
}
