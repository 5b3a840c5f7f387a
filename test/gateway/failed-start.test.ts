import { join } from 'node:path';
import t from 'tap';
import { moduleUrl as repoModule, runModule } from '../helpers/child.js';
import { devKey, testEncryptionKey } from '../helpers/gateway.js';
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
    { limitMs: 20_000 },
  );
  t.equal(stdout.trim(), 'failed: scripts could not be registered:', stderr);
  t.equal(code, 0, 'the process exited by itself');
  t.ok(ms < 15_000, `it exited within 15 s of starting (${ms} ms)`);
});
