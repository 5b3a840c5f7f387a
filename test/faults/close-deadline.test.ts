import t from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createGateway } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import type { Storage } from '../../lib/storage/index.js';
import { devKey, testEncryptionKey } from '../helpers/gateway.js';

t.test('gateway.close() resolves by its overall deadline even when no queue of the store ever stops', async (t) => {
  const memory = createMemoryStorage();
  t.teardown(() => memory.close());
  // A store whose queues never finish closing (a client wedged on a dead connection).
  const wedged: Storage = {
    ...memory,
    queue: (name, options) => ({ ...memory.queue(name, options), close: () => new Promise<void>(() => {}) }),
  };
  const lines: string[] = [];
  const gateway = await createGateway({
    environments: [{ name: 'dev', secretKey: devKey }],
    storage: wedged,
    encryptionKeys: testEncryptionKey,
    baseUrl: 'http://127.0.0.1:0',
    logger: createLogger({ level: 'warn', write: (line) => lines.push(line) }),
    closeTimeoutMs: 2_000,
    closeDeadlineMs: 600,
  });
  const started = performance.now();
  await gateway.close();
  const ms = Math.round(performance.now() - started);
  t.comment(`gateway.close() with every queue wedged: ${ms} ms`);
  // Each wedged part alone may take 2 s; two of them (webhooks, scripts) would take 4 s.
  t.ok(ms < 1_500, `resolved by the 600 ms deadline (${ms} ms)`);
  const logged = lines.map((line) => JSON.parse(line) as { msg?: string; message?: string; parts?: string[] });
  t.ok(
    logged.some((line) => /overall deadline/.test(line.msg ?? line.message ?? '') && line.parts?.length),
    'the parts left stopping are named in the log',
  );
});
