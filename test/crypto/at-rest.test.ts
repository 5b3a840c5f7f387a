import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import t, { type Test } from 'tap';
import { createMemoryStorage, createRedisStorage, createSqliteStorage } from '../../adapters/storage/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { startGateway } from '../helpers/gateway.js';
import { appKeyPair } from '../helpers/keys.js';
import { redisUrl, requireRedis, uniquePrefix } from '../helpers/redis.js';

const secrets = {
  clientSecret: 'client-secret-PLAINTEXT-1',
  accessToken: 'access-token-PLAINTEXT-2',
  refreshToken: 'refresh-token-PLAINTEXT-3',
  apiKey: 'api-key-PLAINTEXT-4',
  password: 'password-PLAINTEXT-5',
  webhookSecret: 'webhook-secret-PLAINTEXT-6',
};

async function storeEverything(t: Test, storage: Storage) {
  const gw = await startGateway(t, { storage });
  const { privateKey } = appKeyPair();
  const must = async (p: Promise<{ status: number; text: string }>) => {
    const res = await p;
    t.ok(res.status < 300, res.text);
  };
  await must(
    gw.call('POST', '/integrations', {
      body: {
        unique_key: 'gh',
        provider: 'github',
        credentials: { type: 'OAUTH2', client_id: 'cid', client_secret: secrets.clientSecret },
      },
    }),
  );
  await must(
    gw.call('POST', '/integrations', {
      body: {
        unique_key: 'app',
        provider: 'github-app',
        credentials: {
          type: 'APP',
          app_id: '1',
          app_link: 'https://github.com/apps/x',
          private_key: privateKey,
          webhook_secret: secrets.webhookSecret,
        },
      },
    }),
  );
  await must(gw.call('POST', '/integrations', { body: { unique_key: 'stripe', provider: 'stripe' } }));
  await must(gw.call('POST', '/integrations', { body: { unique_key: 'twilio', provider: 'twilio' } }));
  await must(
    gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'gh',
        connection_id: 'c1',
        credentials: { type: 'OAUTH2', access_token: secrets.accessToken, refresh_token: secrets.refreshToken },
      },
    }),
  );
  await must(
    gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'stripe',
        connection_id: 'c2',
        credentials: { type: 'API_KEY', apiKey: secrets.apiKey },
      },
    }),
  );
  await must(
    gw.call('POST', '/connections', {
      body: {
        provider_config_key: 'twilio',
        connection_id: 'c3',
        credentials: { type: 'BASIC', username: 'AC1', password: secrets.password },
      },
    }),
  );
  const back = await gw.call('GET', '/connections/c1?provider_config_key=gh');
  t.equal(back.json.data.credentials.access_token, secrets.accessToken, 'readable through the API');
  return privateKey;
}

function assertNoPlaintext(t: Test, dump: string, privateKey: string) {
  t.ok(dump.length > 0, 'the dump holds data');
  for (const [name, value] of Object.entries(secrets)) t.notOk(dump.includes(value), `no plaintext ${name}`);
  t.notOk(dump.includes('PRIVATE KEY'), 'no private key PEM');
  t.notOk(dump.includes(privateKey.split('\n')[1] as string), 'no private key body');
  t.ok(dump.includes('v1.k1.'), 'sealed boxes are there instead');
}

t.test('SQLite file: raw bytes hold no secret', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'portico.db');
  const storage = createSqliteStorage({ path });
  t.teardown(() => storage.close());
  const privateKey = await storeEverything(t, storage);
  const dump = readdirSync(dir)
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('\n');
  assertNoPlaintext(t, dump, privateKey);
});

t.test('Redis: every value under the prefix holds no secret', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('at-rest');
  const storage = createRedisStorage({ url: redisUrl, prefix });
  const client = createClient({ url: redisUrl });
  await client.connect();
  t.teardown(async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length) await client.del(keys);
    await client.close();
    await storage.close();
  });
  const privateKey = await storeEverything(t, storage);
  const keys = await client.keys(`${prefix}*`);
  const values = await Promise.all(keys.map(async (k) => ((await client.type(k)) === 'string' ? client.get(k) : '')));
  assertNoPlaintext(t, values.join('\n'), privateKey);
});

t.test('memory: the stored values hold no secret either', async (t) => {
  const storage = createMemoryStorage();
  const privateKey = await storeEverything(t, storage);
  const connections = storage.keyv('connections');
  const integrations = storage.keyv('integrations');
  const values = await Promise.all([
    ...['dev\u001fgh\u001ec1', 'dev\u001fstripe\u001ec2', 'dev\u001ftwilio\u001ec3'].map((k) => connections.get(k)),
    ...['dev\u001fgh', 'dev\u001fapp'].map((k) => integrations.get(k)),
  ]);
  t.equal(values.filter(Boolean).length, 5);
  assertNoPlaintext(t, JSON.stringify(values), privateKey);
});
