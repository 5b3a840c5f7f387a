import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { createClient } from '@keyv/redis';
import t from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { runStorageContract } from './contract.js';

const HOST = '127.0.0.1';
const PORT = 6379;
const URL = `redis://${HOST}:${PORT}`;
// Unique per run, so parallel runs and leftovers from a crashed run never meet.
const PREFIX = `portico:test:${process.pid}-${randomBytes(4).toString('hex')}:`;

/** A raw PING with a deadline: the redis client would retry forever instead of saying no. */
function redisAnswers(timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port: PORT });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

if (!(await redisAnswers())) {
  if (process.env.CI === 'true') {
    t.fail(`Redis does not answer on ${HOST}:${PORT}; under CI=true the Redis tests are required`);
  } else {
    t.plan(0, `skipped: Redis does not answer on ${HOST}:${PORT} (start one to run these; under CI=true this fails)`);
  }
} else {
  t.teardown(removeTestKeys);

  await runStorageContract(t, 'redis', () => createRedisStorage({ url: URL, prefix: PREFIX }));

  t.test('redis storage describes itself and keeps keys under its prefix', async (t) => {
    const storage = createRedisStorage({ url: URL, prefix: PREFIX });
    t.teardown(() => storage.close());
    t.equal(storage.kind, 'redis');
    t.equal(storage.shared, true);
    await storage.keyv('layout').set('k', 'v');
    await storage.coordinator.increment('layout');
    const raw = await rawClient();
    t.teardown(() => raw.close());
    t.ok(await raw.get(`${PREFIX}kv:layout::k`), 'values under <prefix>kv:<namespace>::<key>');
    t.equal(await raw.get(`${PREFIX}count:layout`), '1', 'counters under <prefix>count:<key>');
  });

  t.test('the default prefix is portico:', async (t) => {
    const storage = createRedisStorage({ url: URL });
    t.teardown(() => storage.close());
    const ns = `default-prefix-${randomBytes(4).toString('hex')}`;
    const kv = storage.keyv(ns);
    await kv.set('k', 'v');
    const raw = await rawClient();
    t.teardown(() => raw.close());
    t.ok(await raw.get(`portico:kv:${ns}::k`));
    await kv.clear();
  });

  t.test('close with nothing ever sent still exits cleanly', async () => {
    await createRedisStorage({ url: URL, prefix: PREFIX }).close();
  });
}

async function rawClient() {
  const client = createClient({ url: URL });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Everything this run wrote lives under PREFIX; remove it all. */
async function removeTestKeys() {
  const client = await rawClient();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}
