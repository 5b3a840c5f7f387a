import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Environment } from '../../lib/environments/index.js';
import { createGateway, type Gateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import { settleHttpShapes, tuneServerProcess } from '../../lib/runtime/index.js';
import { storageFromUrl } from '../storage/index.js';
import { banner } from './banner.js';
import type { StandaloneConfig } from './config.js';
import { devEncryptionKey, devSecretKey, newSecretKey } from './dev-keys.js';
import { startMetricsServer } from './metrics-server.js';
import { drainServer } from './drain.js';
import { readProvidersFile } from './providers-file.js';

export interface Standalone {
  server: Server;
  gateway: Gateway;
  /** Where the server listens (the interface address), for code talking to it. */
  url: string;
  /** The public address: SERVICE_BASE_URL, or `http://localhost:<port>`. */
  baseUrl: string;
  /** The SERVICE_METRICS_PORT listener, when there is one. */
  metricsUrl: string | undefined;
  /** Each environment's secret key (configured, or the development key in use). */
  secretKeys: Readonly<Record<string, string>>;
  /** Lets requests in flight finish (up to `shutdownTimeoutMs`), then stops the gateway and the store. */
  stop(): Promise<void>;
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });

/** An environment's deploy key and switch, from SERVICE_DEPLOY_KEY[_<ENV>] and SERVICE_DEPLOYS_DISABLED. */
function deploySettings(config: StandaloneConfig, name: string): { deployKey?: string; deploysDisabled?: boolean } {
  const deployKey = config.deployKeys[name] ?? config.deployKey;
  return {
    ...(deployKey ? { deployKey } : {}),
    ...(config.deploysDisabled.includes(name) ? { deploysDisabled: true } : {}),
  };
}

/** The standalone gateway: the same stack as the embedded one, on a plain Node http server. */
export async function startStandalone(
  config: StandaloneConfig,
  print: (line: string) => void = console.log,
): Promise<Standalone> {
  // A server that idles between busy spells and streams bodies (lib/runtime/index.ts).
  tuneServerProcess({ heapGrowingPercent: config.heapGrowingPercent });
  // First: a bad providers file stops the start before any storage is opened.
  const providers = config.providersFile ? readProvidersFile(config.providersFile) : [];
  const logger = createLogger({ level: config.logLevel, ...(config.logFile ? { destination: config.logFile } : {}) });
  const storage = storageFromUrl(config.storeUrl, {
    onError: (error) =>
      logger.warn('store: background error', { error: error instanceof Error ? error.message : String(error) }),
    onWarning: (message, fields) => logger.warn(`store: ${message}`, fields),
  });
  // A start that fails part way (a script that does not register, a port taken) stops what it
  // had started, so an application that catches the error is not kept alive by it.
  const started: { gateway?: Gateway; server?: Server } = {};
  try {
    return await serve();
  } catch (error) {
    started.server?.close();
    await started.gateway?.close();
    await storage.close();
    logger.flush();
    throw error;
  }

  async function serve(): Promise<Standalone> {
    // Development keys live beside a SQLite database, so data and tools survive a restart.
    const sqlitePath = config.storeUrl.startsWith('sqlite://') ? config.storeUrl.slice('sqlite://'.length) : undefined;
    let encryptionKey = config.encryptionKey;
    if (!encryptionKey) {
      const dev = sqlitePath ? devEncryptionKey(sqlitePath) : undefined;
      if (dev?.created)
        print(
          `No SERVICE_ENCRYPTION_KEY: generated a development key in ${dev.file}. Set SERVICE_ENCRYPTION_KEY in production.`,
        );
      encryptionKey = dev?.key ?? randomBytes(32).toString('base64');
    }
    const generated: { name: string; file: string | undefined; created: boolean }[] = [];
    const environments: Environment[] = config.environments.map((e) => {
      let secretKey = e.secretKey;
      if (secretKey === undefined) {
        const dev = sqlitePath ? devSecretKey(sqlitePath, e.name) : undefined;
        secretKey = dev?.key ?? newSecretKey(e.name);
        generated.push({ name: e.name, file: dev?.file, created: dev?.created ?? true });
      }
      return {
        name: e.name,
        secretKey,
        ...deploySettings(config, e.name),
        ...(e.webhookUrl ? { webhookUrl: e.webhookUrl } : {}),
        ...(e.webhookSecondaryUrl ? { webhookSecondaryUrl: e.webhookSecondaryUrl } : {}),
        ...(e.webhookSigningKey ? { webhookSigningKey: e.webhookSigningKey } : {}),
        ...(e.scriptLogLevel ? { scriptLogLevel: e.scriptLogLevel } : {}),
      };
    });
    const metricsOn = config.metricsToken !== undefined || config.metricsPort !== undefined;
    const baseUrl = config.baseUrl ?? `http://localhost:${config.port}`;
    const gateway = await createGateway({
      environments,
      storage,
      encryptionKeys: encryptionKey,
      baseUrl,
      providers,
      logger,
      ...(config.scriptsDir ? { scripts: { dir: config.scriptsDir } } : {}),
      ...(metricsOn ? { metrics: config.metricsToken ? { token: config.metricsToken } : {} } : {}),
    });
    started.gateway = gateway;
    // Before the first caller's request (lib/runtime/http-shapes.ts).
    await settleHttpShapes();
    const server = createServer(gateway.callback());
    started.server = server;
    server.keepAliveTimeout = 65_000;
    await listen(server, config.port, config.host);
    const { port } = server.address() as AddressInfo;
    let metricsServer: Server | undefined;
    if (config.metricsPort !== undefined && gateway.metrics) {
      metricsServer = await startMetricsServer(gateway.metrics, config.metricsPort, config.host);
    }
    const metricsPort = (metricsServer?.address() as AddressInfo | undefined)?.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    // Port 0 (tests): the public address names the port actually taken.
    const publicUrl = config.baseUrl ?? `http://localhost:${port}`;
    for (const line of banner({ config, publicUrl, port, metricsPort, environments, generated })) print(line);

    let stopping: Promise<void> | undefined;
    return {
      server,
      gateway,
      url,
      baseUrl: publicUrl,
      metricsUrl: metricsPort === undefined ? undefined : `http://${config.host}:${metricsPort}`,
      secretKeys: Object.freeze(Object.fromEntries(environments.map((e) => [e.name, e.secretKey]))),
      stop() {
        stopping ??= (async () => {
          const { cut } = await drainServer(server, config.shutdownTimeoutMs);
          if (cut)
            logger.warn('shutdown: requests still in flight at the deadline were cut', {
              timeout_ms: config.shutdownTimeoutMs,
            });
          if (metricsServer)
            await new Promise<void>((resolve) => {
              metricsServer.close(() => resolve());
              metricsServer.closeIdleConnections();
            });
          await gateway.close();
          await storage.close();
          // Buffered lines (the last requests' logs) go out before the process exits.
          logger.flush();
        })();
        return stopping;
      },
    };
  }
}
