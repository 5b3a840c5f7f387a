import t, { type Test } from 'tap';
import { createPostgresStorage, createRedisStorage } from '../../adapters/storage/index.js';
import type { Storage } from '../../lib/storage/index.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { postgresSchema, postgresUrl, requirePostgres } from '../helpers/postgres.js';
import { redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';
import { startTcpCutterFor } from './tcp-cutter.js';

/**
 * Search (lib/connections/listing.ts over the keyed search list) while the store goes away, stops
 * answering or answers slowly: the client gets `503 store_unavailable` in bounded time, or a
 * (possibly short) page with a cursor, never a hang or a driver's message; search works again,
 * with the same results, once the store is back. On Redis and on PostgreSQL, each behind a TCP
 * proxy the test cuts and slows.
 */

/** The gateway's answers must come well within 2 s; the slack is for a loaded test machine. */
const answerBound = 3_000;
/** Connections of the one end user: enough that a search within their list reads several pages. */
const many = 1_200;

type Store = {
  name: string;
  require(t: Test): Promise<boolean>;
  url: string;
  open(t: Test, through: (url: string) => string): Storage;
};

const stores: Store[] = [
  {
    name: 'Redis',
    require: requireRedis,
    url: redisUrl,
    open(t, through) {
      const prefix = uniquePrefix('faults-search');
      t.teardown(() => removeRedisKeys(prefix));
      return createRedisStorage({ url: through(redisUrl), prefix });
    },
  },
  {
    name: 'PostgreSQL',
    require: requirePostgres,
    url: postgresUrl,
    open(t, through) {
      // The schema is dropped at teardown straight on the server, not through the cutter.
      const { url } = postgresSchema(t, 'search_outage');
      return createPostgresStorage({ url: through(url), maxConnections: 5 });
    },
  },
];

const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const value = await work();
  return { value, ms: Math.round(performance.now() - started) };
};

type Listed = { connection_id: string; provider_config_key: string };
const ids = (json: { data: Listed[] }) => json.data.map((c) => `${c.provider_config_key}/${c.connection_id}`);

async function seed(gw: TestGateway) {
  for (const key of ['a', 'b'])
    await gw.call('POST', '/integrations', { body: { unique_key: key, provider: 'stripe' } });
  const create = async (pck: string, id: string, endUser: object) => {
    const res = await gw.call('POST', '/connections', {
      body: {
        provider_config_key: pck,
        connection_id: id,
        credentials: { type: 'API_KEY', apiKey: 'sk' },
        end_user: endUser,
      },
    });
    if (res.status !== 201) throw new Error(res.text);
  };
  await create('b', 'ada-1', { id: 'u-ada', email: 'ada.lovelace@example.com', display_name: 'Ada Lovelace' });
  await create('b', 'grace', { id: 'u-grace', email: 'grace@navy.mil', display_name: 'Grace Hopper' });
  // One end user with many connections, each with its own email (person<i>@example.com).
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < many; i = next++)
        await create('a', `conn-${i}`, { id: 'u-many', email: `person${i}@example.com` });
    }),
  );
}

/** A 503 a user can act on: the error shape and nothing else, no driver's words, Retry-After, in time. */
function assertUnavailable(
  t: Test,
  what: string,
  answer: { value: { status: number; json: any; text: string; headers: Headers }; ms: number },
) {
  const { value, ms } = answer;
  t.equal(value.status, 503, `${what}: 503`);
  t.same(Object.keys(value.json ?? {}), ['error'], `${what}: only an error`);
  t.equal(value.json?.error?.code, 'store_unavailable', `${what}: store_unavailable`);
  t.type(value.json?.error?.message, 'string', `${what}: with a message`);
  t.notMatch(value.text, /redis|postgres|socket|ECONN|timeout|pg_|\bat \w|query|command/i, `${what}: no internals`);
  t.ok(Number(value.headers.get('retry-after')) > 0, `${what}: with Retry-After`);
  t.ok(ms < answerBound, `${what}: answered in ${ms} ms`);
}

/** Every page of a search, each answered 200 within the bound; the ids seen. */
async function walk(
  t: Test,
  gw: TestGateway,
  query: string,
): Promise<{ seen: string[]; calls: number; slowest: number }> {
  const seen: string[] = [];
  let cursor: string | null = null;
  let slowest = 0;
  for (let calls = 1; calls <= 200; calls++) {
    const res = await timed(() => gw.call('GET', `/connections?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`));
    t.equal(res.value.status, 200, `${query}: 200`);
    slowest = Math.max(slowest, res.ms);
    seen.push(...ids(res.value.json));
    cursor = res.value.json.next_cursor;
    if (!cursor) return { seen, calls, slowest };
  }
  throw new Error('the cursor never ended');
}

for (const store of stores) {
  t.test(`${store.name}: search while the store is cut, hangs or is slow`, async (t) => {
    if (!(await store.require(t))) return;
    const cutter = await startTcpCutterFor(store.url);
    const storage = store.open(t, cutter.through);
    // Teardowns run last registered first: these after the gateway's, which talks through the cutter.
    t.teardown(async () => {
      cutter.restore();
      await storage.close();
      await cutter.close();
    });
    const gw = await startGateway(t, { storage });
    await seed(gw);
    const ready = () =>
      waitFor(async () => (await gw.call('GET', '/health/ready', { key: null })).status === 200, 'readiness', 20_000);

    const ada = await gw.call('GET', '/connections?search=ada');
    t.same(ids(ada.json), ['b/ada-1'], 'before: "ada" finds Ada');
    const first = await gw.call('GET', '/connections?search=per&limit=100');
    t.equal(first.json.data.length, 100, 'before: a first page of "per"');
    const cursor = first.json.next_cursor as string;
    const second = await gw.call('GET', `/connections?search=per&limit=100&cursor=${cursor}`);
    t.equal(second.json.data.length, 100);
    // Every search path: by word start, from a cursor, within an integration, within an end user's list.
    const searches = [
      '/connections?search=ada',
      `/connections?search=per&limit=100&cursor=${cursor}`,
      '/connections?search=ada&provider_config_key=b',
      '/connections?search=person11&end_user_id=u-many',
    ];

    await t.test('the store cut: 503 at once on every search path', async (t) => {
      cutter.cut();
      for (const path of searches) assertUnavailable(t, path, await timed(() => gw.call('GET', path)));
      cutter.restore();
      await ready();
      t.same(ids((await gw.call('GET', '/connections?search=ada')).json), ['b/ada-1'], 'after: "ada" finds Ada again');
      t.same(
        ids((await gw.call('GET', `/connections?search=per&limit=100&cursor=${cursor}`)).json),
        ids(second.json),
        'after: the cursor taken before the cut gives the same page',
      );
    });

    await t.test('the store goes away in the middle of a search', async (t) => {
      // Each answer held 500 ms: a search reads its index entries (one round trip), then the
      // records (another); the cut comes while the second is under way.
      cutter.slow(500);
      const answer = timed(() => gw.call('GET', '/connections?search=ada'));
      await new Promise((resolve) => setTimeout(resolve, 750));
      cutter.cut();
      assertUnavailable(t, 'a search cut midway', await answer);
      cutter.restore();
      await ready();
      t.same(ids((await gw.call('GET', '/connections?search=ada')).json), ['b/ada-1'], 'then searches again');
    });

    await t.test('the store stops answering: 503 within the deadline, then back once it answers', async (t) => {
      cutter.slow(Infinity);
      assertUnavailable(t, 'a search on a hung store', await timed(() => gw.call('GET', '/connections?search=ada')));
      assertUnavailable(
        t,
        'the next one',
        await timed(() => gw.call('GET', '/connections?search=person11&end_user_id=u-many')),
      );
      cutter.restore();
      await ready();
      // Answers that arrive late, for calls given up on, must not be taken for later calls'.
      t.same(ids((await gw.call('GET', '/connections?search=ada')).json), ['b/ada-1'], '"ada" finds Ada');
      t.same(ids((await gw.call('GET', '/connections?search=grace')).json), ['b/grace'], '"grace" finds Grace');
    });

    await t.test('a slow store: each search call answers in bounded time, the cursor gets every match', async (t) => {
      // Slower than a healthy store, faster than its deadline: nothing fails, every read is slow.
      cutter.slow(400);
      const within = await walk(t, gw, '&search=person11&end_user_id=u-many');
      const inB = await walk(t, gw, '&search=per&provider_config_key=b');
      cutter.restore();
      const want = ['a/conn-11', ...Array.from({ length: 10 }, (_, i) => `a/conn-11${i}`)];
      for (let i = 1100; i < Math.min(many, 1200); i++) want.push(`a/conn-${i}`);
      t.same([...within.seen].sort(), want.sort(), `every match of the end user's search (${within.calls} calls)`);
      t.ok(within.slowest < answerBound, `the slowest call of it in ${within.slowest} ms`);
      t.same(inB.seen, [], 'no match within the other integration');
      t.ok(inB.slowest < answerBound, `the slowest call of that in ${inB.slowest} ms`);
      t.comment(
        `${store.name}, 400 ms a round trip: end user's search ${within.calls} calls (slowest ${within.slowest} ms), within an integration ${inB.calls} (slowest ${inB.slowest} ms)`,
      );
    });
  });
}
