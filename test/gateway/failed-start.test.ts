import { join } from 'node:path';
import t from 'tap';
import { moduleUrl as repoModule, runModule } from '../helpers/child.js';
import { devKey, testEncryptionKey } from '../helpers/gateway.js';
import { postgresSchema, requirePostgres } from '../helpers/postgres.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';

const moduleUrl = (path: string) => repoModule(path, import.meta.url);

t.test('a gateway that fails to start stops what it had started: the process exits on its own', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('failed-start');
  t.teardown(() => removeRedisKeys(prefix));
  // On Redis the webhook queue (BullMQ, its own connections) is running by the time the scripts
  // fail to register; before the fix, those connections kept the process alive for good.
  const { stdout, stderr, code, ms } = await runModule(
    `
      import { createGateway } from ${moduleUrl('../../lib/gateway.js')};
      import { createRedisStorage } from ${moduleUrl('../../adapters/storage/index.js')};
      import { createLogger } from ${moduleUrl('../../lib/http/logger.js')};
      const storage = createRedisStorage({ url: ${JSON.stringify(redisUrl)}, prefix: ${JSON.stringify(prefix)} });
      try {
        await createGateway({
          environments: [{ name: 'dev', secretKey: ${JSON.stringify(devKey)} }],
          storage,
          encryptionKeys: ${JSON.stringify(testEncryptionKey)},
          baseUrl: 'http://127.0.0.1:0',
          logger: createLogger({ write: () => {} }),
          scripts: { modules: [{ file: ${JSON.stringify(join(t.testdir(), 'missing.mjs'))}, integrations: ['fake'] }] },
        });
        console.log('started');
      } catch (error) {
        console.log('failed: ' + error.message.split('\\n')[0]);
      }
      await storage.close();
      `,
    { limitMs: 60_000 },
  );
  t.equal(stdout.trim(), 'failed: scripts could not be registered:', stderr);
  t.equal(code, 0, `the process exited by itself (after ${ms} ms; killed at 60 s otherwise)`);
});

t.test('a standalone server whose port is taken stops what it had started: the process exits on its own', async (t) => {
  if (!(await requirePostgres(t))) return;
  const { url } = postgresSchema(t, 'failed-listen');
  // The gateway on PostgreSQL (its pool's connections, the queues' timers) is running when the listen fails.
  const { stdout, stderr, code, ms } = await runModule(
    `
    import { createServer } from 'node:http';
    import { readConfig } from ${moduleUrl('../../adapters/standalone/config.js')};
    import { startStandalone } from ${moduleUrl('../../adapters/standalone/server.js')};
    const taken = createServer();
    await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      await startStandalone(
        readConfig({
          SERVICE_PORT: String(taken.address().port),
          SERVICE_LOG_LEVEL: 'silent',
          SERVICE_STORE_URL: ${JSON.stringify(url)},
          SERVICE_SECRET_KEY: ${JSON.stringify(devKey)},
          SERVICE_ENCRYPTION_KEY: ${JSON.stringify(testEncryptionKey)},
        }),
        () => {},
      );
      console.log('started');
    } catch (error) {
      console.log('failed: ' + error.code);
    }
    taken.close();
    `,
    { limitMs: 60_000 },
  );
  t.equal(stdout.trim(), 'failed: EADDRINUSE', stderr);
  t.equal(code, 0, `the process exited by itself (after ${ms} ms; killed at 60 s otherwise)`);
});
