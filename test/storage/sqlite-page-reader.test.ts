import { getPriority } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { chooseSqliteDriver } from '../../adapters/storage/sqlite-driver.js';
import { createSqlitePageReader } from '../../adapters/storage/sqlite-reader/index.js';
import { createCollection, type ValueView } from '../../lib/storage/index.js';

const views = new URL('./fixtures/page-views.ts', import.meta.url).href;
const onThread: ValueView = { module: views, name: 'onThread' };
const stuck: ValueView = { module: views, name: 'stuck' };
const niceness: ValueView = { module: views, name: 'niceness' };

type Item = { id: string; order?: number; hold_ms?: number };

async function fill(path: string, n: number, hold_ms = 0) {
  const storage = createSqliteStorage({ path, pageReader: false });
  const items = createCollection<Item>(storage, 'items');
  for (let i = 0; i < n; i++) {
    const id = `i${String(i).padStart(3, '0')}`;
    await items.put('env', id, { id, hold_ms }, undefined);
  }
  await storage.close();
}

/** Waits (on a loaded machine, a worker thread under the TypeScript loader takes seconds to start) until `ready`. */
async function until(ready: () => Promise<boolean>) {
  const deadline = Date.now() + 120_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error('the page reader did not take over in 120 s');
    await setTimeout(50);
  }
}

t.test('pages are read on a worker thread, the same pages as read in process', async (t) => {
  const path = join(t.testdir(), 'portico.db');
  await fill(path, 25);
  const here = createSqliteStorage({ path, pageReader: false });
  const off = createSqliteStorage({ path });
  t.teardown(async () => {
    await here.close();
    await off.close();
  });
  // One listed id whose value is gone (a write cut short): both skip it.
  await here.keyv('items').delete('env\u001fi003');
  const walk = async (storage: typeof here, reverse: boolean) => {
    const items = createCollection<Item>(storage, 'items');
    const pages: { ids: string[]; threads: number[] }[] = [];
    let after;
    for (;;) {
      const page = await items.pageText('env', 'all', onThread, { limit: 10, after, reverse });
      const rows = JSON.parse(page.json.toString()) as { id: string; thread: number }[];
      t.equal(page.count, rows.length);
      pages.push({ ids: rows.map((r) => r.id), threads: rows.map((r) => r.thread) });
      if (!page.next) return pages;
      after = page.next;
    }
  };
  // Until its worker runs and has loaded the view, the reader reads in process.
  const offItems = createCollection<Item>(off, 'items');
  await until(async () => {
    const [row] = JSON.parse((await offItems.pageText('env', 'all', onThread, { limit: 1 })).json.toString()) as {
      thread: number;
    }[];
    return row !== undefined && row.thread !== 0;
  });
  for (const reverse of [false, true]) {
    const inProcess = await walk(here, reverse);
    const offThread = await walk(off, reverse);
    t.same(
      offThread.map((p) => p.ids),
      inProcess.map((p) => p.ids),
      `the same pages, in the same order (reverse: ${reverse})`,
    );
    t.same(
      inProcess.map((p) => p.ids.length),
      [10, 10, 4],
      'the last page says there is no more; the missing value is skipped',
    );
    t.ok(
      offThread.every((p) => p.threads.every((id) => id !== 0)),
      'the views ran off the main thread',
    );
    t.ok(
      inProcess.every((p) => p.threads.every((id) => id === 0)),
      'without a reader they run in process',
    );
  }
});

t.test(
  'the worker gives way to the gateway: its thread runs 10 nicer, the gateway thread as before',
  { skip: process.platform !== 'linux' && 'a thread has a nice value of its own on Linux only' },
  async (t) => {
    const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db') });
    t.teardown(() => storage.close());
    const items = createCollection<Item>(storage, 'items');
    await items.put('env', 'n', { id: 'n' }, undefined);
    const before = getPriority(0);
    type Shown = { thread: number; nice: number };
    let row: Shown | undefined;
    await until(async () => {
      [row] = JSON.parse((await items.pageText('env', 'all', niceness, { limit: 1 })).json.toString()) as Shown[];
      return row !== undefined && row.thread !== 0;
    });
    t.equal(row?.nice, Math.min(19, before + 10), 'the page was built on a thread 10 nicer than the gateway');
    t.equal(getPriority(0), before, "the gateway's own thread keeps its priority");
  },
);

t.test('a page written and committed is read by the worker at once', async (t) => {
  const storage = createSqliteStorage({ path: join(t.testdir(), 'portico.db') });
  t.teardown(() => storage.close());
  const items = createCollection<Item>(storage, 'items');
  await items.put('env', 'w', { id: 'w' }, undefined);
  await until(async () => {
    const [row] = JSON.parse((await items.pageText('env', 'all', onThread, { limit: 1 })).json.toString()) as {
      thread: number;
    }[];
    return row !== undefined && row.thread !== 0;
  });
  await items.delete('env', 'w', { id: 'w' });
  const ids = async () =>
    (JSON.parse((await items.pageText('env', 'all', onThread, { limit: 100 })).json.toString()) as Item[]).map(
      (r) => r.id,
    );
  t.same(await ids(), []);
  await items.put('env', 'a', { id: 'a' }, undefined);
  t.same(await ids(), ['a'], 'the write is seen by the next page');
  await items.put('env', 'b', { id: 'b' }, undefined);
  await items.delete('env', 'a', { id: 'a' });
  t.same(await ids(), ['b']);
});

t.test('reads are bounded: a full queue is refused at once, a stuck read fails at its deadline', async (t) => {
  const path = join(t.testdir(), 'portico.db');
  await fill(path, 3, 400);
  const reader = createSqlitePageReader({
    path,
    driver: chooseSqliteDriver(),
    maxPending: 2,
    deadlineMs: 300,
    inProcess: () => Promise.reject(new Error('read in process')),
  });
  t.teardown(() => reader.close());
  const request = (limit: number) => ({
    namespace: 'items',
    list: 'env\u001fall',
    keyPrefix: 'env\u001f',
    limit,
    view: stuck,
  });
  // Started, with the views loaded (reads go to the worker from then on).
  // (A stuck read on the worker fails at its deadline; one in process fails at once, saying so.)
  const onWorker = (view: ValueView) => () =>
    reader.read({ ...request(1), view }).then(
      () => true,
      (error: Error) => !/read in process/.test(error.message),
    );
  await until(onWorker(onThread));
  await until(onWorker(stuck));
  // That stuck read holds the worker for 400 ms.
  await setTimeout(500);
  const started = Date.now();
  const first = reader.read(request(3));
  const second = reader.read(request(3));
  await t.rejects(reader.read(request(3)), /2 reads already waiting/, 'a third read is refused at once');
  await t.rejects(first, /no page within 300 ms/, 'a read that does not finish in time fails');
  t.ok(Date.now() - started < 1_000, 'at its deadline, not when the read ends');
  await t.rejects(second, /300 ms|deadline/);
  // The stuck read holds the worker until it ends (1.2 s); the one queued behind it is skipped, not run.
  await setTimeout(Math.max(0, started + 1_500 - Date.now()));
  const page = await reader.read({ ...request(3), view: onThread });
  t.equal(page.count, 3, 'the reader serves again afterwards');
});
