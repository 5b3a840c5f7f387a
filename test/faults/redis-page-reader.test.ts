import t, { type Test } from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { createCollection, type Storage, type ValueView } from '../../lib/storage/index.js';
import { startGateway } from '../helpers/gateway.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';
import { startTcpCutterFor } from './tcp-cutter.js';

/**
 * Redis's page reader (adapters/storage/redis-reader/) while Redis goes away or stops answering:
 * a page read fails within the reader's deadline (1.5 s), on the worker and in process alike,
 * and the API answers `503 store_unavailable` in bounded time, never hangs; pages come from the
 * worker again once Redis is back. Redis behind a TCP proxy the test cuts and holds.
 */

/** The reader's deadline is 1.5 s; the slack is for a loaded test machine. */
const answerBound = 3_000;

const onThread: ValueView = {
  module: new URL('../storage/fixtures/page-views.ts', import.meta.url).href,
  name: 'onThread',
};

type Item = { id: string; order?: number };

/** How a call ended, and after how long. */
const timed = async <T>(work: () => Promise<T>): Promise<{ value?: T; error?: Error; ms: number }> => {
  const started = performance.now();
  const outcome = await work().then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
  return { ...outcome, ms: Math.round(performance.now() - started) };
};

const page = (storage: Storage) =>
  createCollection<Item>(storage, 'items').pageText('env', 'all', onThread, { limit: 10 });

/** The page's threads once the worker reads it (waits while the worker starts, or Redis comes back). */
const fromWorker = (storage: Storage) =>
  waitFor(
    async () => {
      const rows = JSON.parse((await page(storage).catch(() => ({ json: '[]' }))).json.toString()) as {
        id: string;
        thread: number;
      }[];
      return rows.length > 0 && rows.every((r) => r.thread !== 0) && rows.map((r) => r.id);
    },
    'pages from the worker',
    120_000,
  );

function failsInTime(t: Test, what: string, outcome: { error?: Error; ms: number }, message: RegExp) {
  t.ok(outcome.error, `${what}: the read fails`);
  t.match(outcome.error?.message, message, `${what}: ${outcome.error?.message}`);
  t.ok(outcome.ms < answerBound, `${what}: in ${outcome.ms} ms`);
}

/** A Redis storage whose connections (its page reader's included) pass through a cutter; all removed at the end. */
async function redisBehindCutter(t: Test, name: string) {
  const cutter = await startTcpCutterFor(redisUrl);
  const prefix = uniquePrefix(name);
  const storage = createRedisStorage({ url: cutter.through(redisUrl), prefix });
  t.teardown(async () => {
    cutter.restore();
    await storage.close();
    await cutter.close();
    await removeRedisKeys(prefix);
  });
  return { cutter, storage };
}

t.test('Redis cut or hung: a page read fails within its deadline, then reads from the worker again', async (t) => {
  if (!(await requireRedis(t))) return;
  const { cutter, storage } = await redisBehindCutter(t, 'faults-redis-pages');
  await createCollection<Item>(storage, 'items').put('env', 'a', { id: 'a' }, undefined);

  // The first read starts the worker and is read in process meanwhile, on the storage's client.
  cutter.slow(Infinity);
  failsInTime(t, 'in process, Redis hung', await timed(() => page(storage)), /no page within 1500 ms/);
  cutter.restore();
  t.same(await fromWorker(storage), ['a'], 'the worker reads the page once Redis answers');

  cutter.cut();
  failsInTime(t, 'on the worker, Redis cut', await timed(() => page(storage)), /^page reader: /);
  cutter.restore();
  t.same(await fromWorker(storage), ['a'], 'the worker reads again after the cut');

  cutter.slow(Infinity);
  failsInTime(t, 'on the worker, Redis hung', await timed(() => page(storage)), /no page within 1500 ms/);
  failsInTime(t, 'the next read too', await timed(() => page(storage)), /no page within 1500 ms/);
  cutter.restore();
  t.same(
    await fromWorker(storage),
    ['a'],
    'the worker reads again once Redis answers; late answers are not taken for later reads',
  );
});

t.test(
  'GET /connections on Redis cut or hung: 503 store_unavailable in bounded time, then the same page',
  async (t) => {
    if (!(await requireRedis(t))) return;
    const { cutter, storage } = await redisBehindCutter(t, 'faults-redis-list');
    const gw = await startGateway(t, { storage });
    await gw.call('POST', '/integrations', { body: { unique_key: 'crm', provider: 'stripe' } });
    for (let i = 0; i < 5; i++) {
      const created = await gw.call('POST', '/connections', {
        body: { provider_config_key: 'crm', connection_id: `c${i}`, credentials: { type: 'API_KEY', apiKey: 'sk' } },
      });
      t.equal(created.status, 201);
    }
    // The worker runs; the listing's view is loaded on it by the first listing (later ones read there).
    await createCollection<Item>(storage, 'items').put('env', 'a', { id: 'a' }, undefined);
    await fromWorker(storage);
    const before = await gw.call('GET', '/connections?limit=3');
    t.equal(before.status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    for (const fault of ['cut', 'hung'] as const) {
      if (fault === 'cut') cutter.cut();
      else cutter.slow(Infinity);
      for (const path of ['/connections?limit=3', `/connections?limit=3&provider_config_key=crm`]) {
        const answer = await timed(() => gw.call('GET', path));
        const res = answer.value;
        t.equal(res?.status, 503, `${fault}, ${path}: 503`);
        t.equal(res?.json?.error?.code, 'store_unavailable', `${fault}: store_unavailable`);
        t.ok(answer.ms < answerBound, `${fault}, ${path}: answered in ${answer.ms} ms`);
      }
      cutter.restore();
      const again = await waitFor(async () => {
        const res = await gw.call('GET', '/connections?limit=3');
        return res.status === 200 && res;
      }, 'listing after the fault');
      t.same(again.json, before.json, `after the ${fault}: the same page`);
    }
  },
);
