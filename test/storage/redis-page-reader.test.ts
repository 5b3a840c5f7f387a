import { createClient } from '@keyv/redis';
import t from 'tap';
import { createRedisStorage } from '../../adapters/storage/index.js';
import { createCollection, type IndexPosition, type Storage, type ValueView } from '../../lib/storage/index.js';
import { redisStorageFor, redisUrl, removeRedisKeys, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';

const views = new URL('./fixtures/page-views.ts', import.meta.url).href;
const onThread: ValueView = { module: views, name: 'onThread' };
const shown: ValueView = { module: views, name: 'shown' };
const exits: ValueView = { module: views, name: 'exits' };

type Item = { id: string; order?: number; owner: string; note?: string; blob?: Buffer };
const items = (storage: Storage) =>
  createCollection<Item>(storage, 'items', { lists: (item) => [`owner:${item.owner}`] });
const id = (i: number) => `i${String(i).padStart(3, '0')}`;

/** Waits (a worker under the TypeScript loader takes seconds to start on a loaded machine) until `view`'s pages come from the worker. */
const onWorker = (storage: Storage) =>
  waitFor(
    async () => {
      const page = await items(storage).pageText('env', 'all', onThread, { limit: 1 });
      const [row] = JSON.parse(page.json.toString()) as { thread: number }[];
      return row !== undefined && row.thread !== 0;
    },
    'the page reader to take over',
    120_000,
  );

/** Every page of `list`, limit 7, from `after`: each page's text with the thread left out, its count and next. */
async function walk(storage: Storage, list: string, reverse: boolean, after?: IndexPosition) {
  const pages: { json: string; count: number; next: IndexPosition | null; threads: number[] }[] = [];
  for (;;) {
    const page = await items(storage).pageText('env', list, shown, { limit: 7, after, reverse });
    const rows = JSON.parse(page.json.toString()) as { thread: number }[];
    const json = page.json.toString().replace(/,"thread":\d+/g, '');
    pages.push({ json, count: page.count, next: page.next, threads: rows.map((r) => r.thread) });
    if (!page.next) return pages;
    after = page.next;
  }
}

t.test('Redis pages read on the worker are the pages read in process', async (t) => {
  if (!(await requireRedis(t))) return;
  const prefix = uniquePrefix('redis-pages');
  const here = createRedisStorage({ url: redisUrl, prefix, pageReader: false });
  const off = createRedisStorage({ url: redisUrl, prefix });
  const raw = createClient({ url: redisUrl });
  await raw.connect();
  t.teardown(async () => {
    await here.close();
    await off.close();
    await raw.close();
    await removeRedisKeys(prefix);
  });
  t.equal(here.pages, undefined, 'pageReader: false reads in process');
  t.ok(off.pages, 'a page reader by default');

  const store = items(here);
  for (let i = 0; i < 30; i++) {
    const item: Item = { id: id(i), owner: i % 3 === 0 ? 'a' : 'b' };
    // Keyv's escapes: a colon-led string (doubled when stored) and a Buffer (`:base64:…`).
    if (i % 4 === 0) item.note = `:note ${i}`;
    if (i === 8) item.blob = Buffer.from('bytes');
    await store.put('env', item.id, item, undefined);
  }
  // A listed id whose value is gone (a write cut short), and one whose value has expired but
  // that Redis still holds (what Keyv reads as absent): both paths skip them.
  await here.keyv('items').delete('env\u001fi003');
  const expired = `${prefix}kv:items::env\u001fi006`;
  const text = await raw.get(expired);
  t.ok(text, 'the value is where the reader looks for it');
  t.notMatch(text, /"expires"/, 'stored without an expiry');
  await raw.set(expired, `${(text as string).slice(0, -1)},"expires":1}`);

  await onWorker(off);
  await waitFor(
    async () => (await walk(off, 'all', false)).every((p) => p.threads.every((thread) => thread !== 0)),
    'the view `shown` to run on the worker',
    60_000,
  );
  // The worker's walks first: Keyv deletes the expired value when it reads it in process.
  const cases: [string, boolean][] = [
    ['all', false],
    ['all', true],
    ['owner:a', false],
    ['owner:b', true],
  ];
  const onWorkerPages: Awaited<ReturnType<typeof walk>>[] = [];
  for (const [list, reverse] of cases) onWorkerPages.push(await walk(off, list, reverse));
  const mid = onWorkerPages[0]?.[1]?.next ?? undefined;
  t.ok(mid, 'a cursor from the middle of the list');
  const fromMid = await walk(off, 'all', true, mid);
  t.equal(await raw.exists(expired), 1, 'the expired value was still in Redis when the worker read');

  for (const [i, [list, reverse]] of cases.entries()) {
    const worker = onWorkerPages[i] ?? [];
    const inProcess = await walk(here, list, reverse);
    t.same(strip(worker), strip(inProcess), `${list}${reverse ? ', reversed' : ''}: the same text, counts and cursors`);
    t.ok(
      worker.every((p) => p.threads.every((thread) => thread !== 0)),
      `${list}: the view ran on the worker`,
    );
    t.ok(
      inProcess.every((p) => p.threads.every((thread) => thread === 0)),
      `${list}: without a reader, in process`,
    );
  }
  const all = onWorkerPages[0] ?? [];
  const ids = all.flatMap((p) => (JSON.parse(p.json.toString()) as Item[]).map((row) => row.id));
  t.same(ids.length, 28, 'the missing and the expired values are skipped');
  t.notOk(ids.includes('i003') || ids.includes('i006'));
  const rows = all.flatMap((p) => JSON.parse(p.json.toString()) as (Omit<Item, 'blob'> & { blob?: unknown })[]);
  t.equal(rows.find((r) => r.id === 'i004')?.note, ':note 4', 'a colon-led string as it was written');
  t.same(rows.find((r) => r.id === 'i008')?.blob, { type: 'Buffer', data: [...Buffer.from('bytes')] }, 'a Buffer');
  t.same(strip(fromMid), strip(await walk(here, 'all', true, mid)), 'from a cursor, reversed: the same pages');
});

/** A walk's pages without the threads that showed them. */
function strip(pages: { json: string; count: number; next: IndexPosition | null }[]) {
  return pages.map(({ json, count, next }) => ({ json, count, next }));
}

t.test('a worker that crashes is started again at the next read', async (t) => {
  const storage = await redisStorageFor(t, 'redis-pages-crash');
  if (!storage) return;
  await items(storage).put('env', 'x', { id: 'x', owner: 'a' }, undefined);
  await onWorker(storage);
  // Until the worker has loaded `exits`, it runs in process and shows the id.
  const crashed = await waitFor(
    () =>
      items(storage)
        .pageText('env', 'all', exits, { limit: 1 })
        .then(
          () => false,
          (error: Error) => error.message,
        ),
    'a read on the worker that ends it',
    60_000,
  );
  t.match(crashed, /worker exited \(3\)/, 'the read under way fails, saying why');
  const first = await items(storage).pageText('env', 'all', onThread, { limit: 1 });
  t.same(
    (JSON.parse(first.json.toString()) as { thread: number }[]).map((r) => r.thread),
    [0],
    'the next read is answered in process while a new worker starts',
  );
  await onWorker(storage);
  t.pass('a new worker reads the pages');
});
