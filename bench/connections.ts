/**
 * Connections at scale (issue 17): import N connections through HTTP (one per request, 16 in
 * flight) with the rate per slice, then batched through the service; at 1k, 100k and 1M (those
 * ≤ N) the latency of a page of 100 (first and deep), of GET and PATCH of one connection, of a
 * proxied call alone and while 4 list calls run; store size and RSS. SQLite and Redis.
 *
 *   npm run bench:connections                          # 1,000,000 on SQLite and Redis (long)
 *   npm run bench:connections -- --n 100000 --stores sqlite
 *
 * Options: --n N, --stores sqlite,redis, --in-flight 16, --client process|inline (where the importing and
 * listing client runs: its own process, default, or the gateway's), --page-reader on|off|ab (SQLite and
 * Redis: listing pages read on a worker thread, default, or on the gateway's; ab: at each size, only
 * the list page and the proxied call alone and while 4 list calls run, in --rounds rounds switching
 * between the two, the order flipped every round), --rounds 4, --samples 200, --batched 10000
 * (connections imported through the service after the HTTP import, 0 skips),
 * --checkpoints worker|inline (SQLite's WAL checkpoints on a worker thread, the default, or on the
 * gateway's connection after a commit, SQLite's own way), --logs file|off (the gateway's request log: one line per request written to a file in a temporary
 * folder, the standalone server's default, or off), --redis-url URL (REDIS_URL or redis://127.0.0.1:6379),
 * --postgres-url URL (POSTGRES_URL or postgres://postgres@127.0.0.1:5432/postgres; a schema of its own, dropped after).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { createPostgresStorage, createRedisStorage, createSqliteStorage } from '../adapters/storage/index.js';
import { createGateway } from '../lib/gateway.js';
import { createLogger } from '../lib/http/logger.js';
import { encodePositionCursor } from '../lib/http/position-cursor.js';
import { collectPage, type PageRequest, type Storage } from '../lib/storage/index.js';
import { call, connection, createLoad, expectOk, secretKey, type Load } from './connections-load.js';
import { benchArgs } from './args.js';

const args = benchArgs('bench:connections', {
  n: {
    type: 'string',
    default: '1000000',
    help: 'connections imported through HTTP, one per request; measured at 1,000, 100,000, 1,000,000 (those below n) and n',
  },
  stores: {
    type: 'string',
    default: 'sqlite,redis',
    choices: ['sqlite', 'redis', 'postgres'],
    commaSeparated: true,
    help: 'stores run one after another',
  },
  'in-flight': { type: 'string', default: '16', help: 'imports sent at once by the client' },
  client: {
    type: 'string',
    default: 'process',
    choices: ['process', 'inline'],
    help: "where the importing and listing client runs: a process of its own, or inline in the gateway's",
  },
  'page-reader': {
    type: 'string',
    default: 'on',
    choices: ['on', 'off', 'ab'],
    help: "SQLite's and Redis's list pages read on a worker thread (on), on the gateway's thread (off), or both compared in rounds (ab)",
  },
  rounds: {
    type: 'string',
    default: '4',
    help: 'with --page-reader ab: rounds at each size, each with the reader off and on',
  },
  samples: {
    type: 'string',
    default: '200',
    help: 'timed calls per latency figure (twice as many for the proxied call)',
  },
  batched: {
    type: 'string',
    default: '10000',
    help: 'connections then imported through the service, 256 at a time (0 skips)',
  },
  logs: {
    type: 'string',
    default: 'file',
    choices: ['file', 'off'],
    help: "the gateway's request log: one line per request to a file in a temporary folder, or off",
  },
  checkpoints: {
    type: 'string',
    default: 'worker',
    choices: ['worker', 'inline'],
    help: "SQLite's WAL checkpoints: on a worker thread, or inline after a commit on the gateway's thread",
  },
  'redis-url': {
    type: 'string',
    default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    help: 'the Redis of --stores redis, keys under a prefix of their own, removed after (REDIS_URL sets the default)',
  },
  'postgres-url': {
    type: 'string',
    default: process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    help: 'the PostgreSQL of --stores postgres, in a schema of its own, dropped after (POSTGRES_URL sets the default)',
  },
});
const N = Number(args.n);
const IN_FLIGHT = Number(args['in-flight']);
const SAMPLES = Number(args.samples);
const BATCHED = Number(args.batched);
// benchArgs took only these options' choices.
const CLIENT = args.client as 'process' | 'inline';
const LOGS = args.logs as 'file' | 'off';
const PAGE_READER = args['page-reader'] as 'on' | 'off' | 'ab';
const ROUNDS = Number(args.rounds);
const checkpoints = [1_000, 100_000, 1_000_000].filter((c) => c <= N);
if (!checkpoints.includes(N)) checkpoints.push(N);
// Slices of the import whose rates are compared: 100k at a million, a tenth below that.
const SLICE = N >= 1_000_000 ? 100_000 : Math.max(100, Math.round(N / 10));

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (v: number) => `${v.toFixed(2)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const fmt = (v: number) => Math.round(v).toLocaleString('en-US');

async function latency(
  run: (i: number) => Promise<unknown>,
  samples = SAMPLES,
): Promise<{ p50: number; p99: number; times: number[] }> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await run(i);
    times.push(performance.now() - start);
  }
  return { ...percentiles(times), times };
}

const percentiles = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

/**
 * `--page-reader ab`: the storage with its page reader switched, between rounds, to reading
 * pages in process as a storage without one does (`Collection.pageText`: the index's page, the
 * values through Keyv), so both are measured in one run, on the same data.
 */
function switchablePages(storage: Storage): { storage: Storage; use(reader: boolean): void; reads(): number } {
  const reader = storage.pages;
  if (!reader) throw new Error('--page-reader ab: this storage has no page reader');
  let on = true;
  let reads = 0;
  const inProcess = (request: PageRequest) =>
    collectPage(
      {
        positions: (list, limit, after, reverse) => storage.index(request.namespace).page(list, limit, after, reverse),
        values: async (keys) => (keys.length === 0 ? [] : storage.keyv(request.namespace).get(keys)),
      },
      request,
    );
  return {
    storage: {
      ...storage,
      pages: { read: (request) => (reads++, on ? reader.read(request) : inProcess(request)) },
    },
    use: (value) => void (on = value),
    reads: () => reads,
  };
}

/**
 * The A/B of `--page-reader ab` at one size: a page of 100 (first and from the middle), the
 * proxied call alone and while 4 list calls run (and how many list calls a second ran beside
 * it), with the reader off and on in turn.
 */
async function pagesAb(
  base: string,
  load: Load,
  ab: { use(reader: boolean): void; reads(): number },
  cursor: string,
  proxyCall: () => Promise<unknown>,
) {
  type Figures = Record<'first' | 'deep' | 'alone' | 'busy' | 'lists', number[]>;
  const all: Record<'off' | 'on', Figures> = {
    off: { first: [], deep: [], alone: [], busy: [], lists: [] },
    on: { first: [], deep: [], alone: [], busy: [], lists: [] },
  };
  const round = async (mode: 'off' | 'on', counted: boolean) => {
    ab.use(mode === 'on');
    const first = await latency(() => expectOk(call(base, 'GET', '/connections?limit=100'), 'list'));
    const deep = await latency(() =>
      expectOk(call(base, 'GET', `/connections?limit=100&cursor=${cursor}`), 'deep list'),
    );
    const alone = await latency(proxyCall, SAMPLES * 2);
    await load.startLists('/connections?limit=100', 4);
    const [reads, started] = [ab.reads(), performance.now()];
    const busy = await latency(proxyCall, SAMPLES * 2);
    const lists = (ab.reads() - reads) / ((performance.now() - started) / 1000);
    await load.stopLists();
    if (!counted) return;
    const figures = all[mode];
    figures.first.push(...first.times);
    figures.deep.push(...deep.times);
    figures.alone.push(...alone.times);
    figures.busy.push(...busy.times);
    figures.lists.push(lists);
    console.log(
      `    reader ${mode.padEnd(3)}: list p50 ${ms(first.p50)}, from the middle ${ms(deep.p50)} | proxy p50/p99 alone ${ms(alone.p50)}/${ms(alone.p99)},` +
        ` while 4 list calls run ${ms(busy.p50)}/${ms(busy.p99)}, ${fmt(lists)} lists/s | load ${loadAverage()}`,
    );
  };
  // Not counted: the worker started, its view loaded, both paths warm.
  await round('on', false);
  await round('off', false);
  for (let r = 0; r < ROUNDS; r++)
    for (const mode of r % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) await round(mode, true);
  for (const mode of ['off', 'on'] as const) {
    const f = all[mode];
    const [first, deep, alone, busy] = [f.first, f.deep, f.alone, f.busy].map(percentiles) as {
      p50: number;
      p99: number;
    }[];
    console.log(
      `  reader ${mode}, all rounds: list p50 ${ms(first?.p50 ?? NaN)}, from the middle ${ms(deep?.p50 ?? NaN)} | proxy p50/p99 alone ${ms(alone?.p50 ?? NaN)}/${ms(alone?.p99 ?? NaN)},` +
        ` while 4 list calls run ${ms(busy?.p50 ?? NaN)}/${ms(busy?.p99 ?? NaN)}, ${fmt(median(f.lists))} lists/s (medians of the rounds)`,
    );
  }
}

/** A provider that answers 1 KiB at once, for the proxy-while-listing figure. */
async function fakeProvider() {
  const body = Buffer.alloc(1024, 'a');
  const server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A store's size on disk, in bytes, or with what part of it to show apart. */
type StoreSize = () => Promise<number | { bytes: number; detail: string }>;

const storeText = (size: Awaited<ReturnType<StoreSize>>) =>
  typeof size === 'number' ? mb(size) : `${mb(size.bytes)} (${size.detail})`;

async function measureAt(
  base: string,
  load: Load,
  storage: Storage,
  n: number,
  size: StoreSize,
  ab?: { use(reader: boolean): void; reads(): number },
) {
  const pick = (i: number) => `conn-${(i * 7919) % n}`;
  const proxyCall = () =>
    expectOk(
      call(base, 'GET', '/proxy/items', undefined, { 'provider-config-key': 'api', 'connection-id': 'one' }),
      'proxy',
    );
  // A page from the middle of the list: the cursor a client would hold there.
  const middle = await storage
    .keyv<{ order: number }>('connections')
    .get(`bench\u001fcrm\u001econn-${Math.floor(n / 2)}`);
  const cursor = encodePositionCursor(
    { order: middle?.order ?? 0, id: `crm\u001econn-${Math.floor(n / 2)}` },
    'connections',
  );
  if (ab) {
    console.log(`  at ${fmt(n)}, page reader off and on in ${ROUNDS} rounds:`);
    return pagesAb(base, load, ab, cursor, proxyCall);
  }
  const first = await latency(() => expectOk(call(base, 'GET', '/connections?limit=100'), 'list'));
  const deep = await latency(() => expectOk(call(base, 'GET', `/connections?limit=100&cursor=${cursor}`), 'deep list'));
  const byUser = await latency((i) =>
    expectOk(call(base, 'GET', `/connections?limit=100&end_user_id=user-${i % 50_000}`), 'list by end user'),
  );
  // Searches: one connection by a word of its email (person123 also finds person1230…), a term
  // that matches every connection (a full page), within the integration; an end user within it.
  const searchOne = await latency((i) =>
    expectOk(call(base, 'GET', `/connections?limit=100&search=person${(i * 7919) % n}`), 'search one'),
  );
  const searchAll = await latency(() => expectOk(call(base, 'GET', '/connections?limit=100&search=per'), 'search all'));
  const searchWithin = await latency((i) =>
    expectOk(
      call(base, 'GET', `/connections?limit=100&provider_config_key=crm&search=person%20${(i * 7919) % n}`),
      'search within',
    ),
  );
  const userWithin = await latency((i) =>
    expectOk(
      call(base, 'GET', `/connections?limit=100&provider_config_key=crm&end_user_id=user-${i % 50_000}`),
      'end user within',
    ),
  );
  const get = await latency((i) =>
    expectOk(call(base, 'GET', `/connections/${pick(i)}?provider_config_key=crm`), 'get'),
  );
  const patch = await latency((i) =>
    expectOk(
      call(base, 'PATCH', `/connections/${pick(i)}?provider_config_key=crm`, {
        end_user: { id: `user-${i % 50_000}`, email: `person${i}@example.com` },
      }),
      'patch',
    ),
  );
  const proxyAlone = await latency(proxyCall, SAMPLES * 2);
  // The four list calls come from the load client (its own process by default), like any client's.
  await load.startLists('/connections?limit=100', 4);
  const proxyBusy = await latency(proxyCall, SAMPLES * 2);
  await load.stopLists();
  const rss = process.memoryUsage().rss;
  console.log(
    `  at ${fmt(n)}: list page of 100 p50 ${ms(first.p50)} p99 ${ms(first.p99)}, from the middle p50 ${ms(deep.p50)} p99 ${ms(deep.p99)}` +
      ` | by end user p50 ${ms(byUser.p50)} p99 ${ms(byUser.p99)} | GET one p50 ${ms(get.p50)} | PATCH p50 ${ms(patch.p50)}`,
  );
  console.log(
    `            search (p50/p99): one ${ms(searchOne.p50)}/${ms(searchOne.p99)}, a full page ${ms(searchAll.p50)}/${ms(searchAll.p99)},` +
      ` within the integration ${ms(searchWithin.p50)}/${ms(searchWithin.p99)} | end user within the integration ${ms(userWithin.p50)}/${ms(userWithin.p99)}`,
  );
  console.log(
    `            proxy p50/p99 alone ${ms(proxyAlone.p50)}/${ms(proxyAlone.p99)}, while 4 list calls run ${ms(proxyBusy.p50)}/${ms(proxyBusy.p99)} | store ${storeText(await size())} | RSS ${mb(rss)}`,
  );
}

async function bench(kind: string, store: Storage, size: StoreSize) {
  const ab = PAGE_READER === 'ab' ? switchablePages(store) : undefined;
  const storage = ab?.storage ?? store;
  console.log(
    `\n${kind}: ${fmt(N)} connections through HTTP, ${IN_FLIGHT} in flight from ${CLIENT === 'process' ? 'a client process' : 'the gateway process'} (rates per ${fmt(SLICE)}); request log ${LOGS === 'file' ? 'on, to a file' : 'off'}`,
  );
  const provider = await fakeProvider();
  const logDir = mkdtempSync(join(tmpdir(), 'portico-bench-log-'));
  const logFile = join(logDir, 'requests.log');
  const logger =
    LOGS === 'file' ? createLogger({ level: 'info', destination: logFile }) : createLogger({ level: 'silent' });
  const gateway = await createGateway({
    environments: [{ name: 'bench', secretKey }],
    storage,
    encryptionKeys: randomBytes(32).toString('base64'),
    baseUrl: 'http://127.0.0.1',
    logger,
    providers: [
      {
        name: 'bench-api',
        display_name: 'Bench API',
        logo_url: 'https://example.com/logo.svg',
        categories: ['test'],
        auth_mode: 'API_KEY',
        docs: 'https://example.com/docs',
        proxy: {
          base_url: provider.url,
          credentials: [{ in: 'header', name: 'Authorization', value: 'Bearer ${apiKey}' }],
        },
      } as never,
    ],
  });
  const server = createServer(gateway.callback());
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await expectOk(call(base, 'POST', '/integrations', { unique_key: 'crm', provider: 'stripe' }), 'integration');
  await expectOk(call(base, 'POST', '/integrations', { unique_key: 'api', provider: 'bench-api' }), 'integration');
  await expectOk(
    call(base, 'POST', '/connections', {
      provider_config_key: 'api',
      connection_id: 'one',
      credentials: { type: 'API_KEY', apiKey: 'k' },
    }),
    'connection',
  );
  const rss0 = process.memoryUsage().rss;
  /** This process's read and write system calls so far (/proc; zeros where there is none). */
  const ioCalls = () => {
    const text = existsSync('/proc/self/io') ? readFileSync('/proc/self/io', 'utf8') : '';
    const read = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(text)?.[1] ?? 0);
    return { reads: read('syscr'), writes: read('syscw') };
  };
  const load = createLoad(CLIENT, base);
  try {
    let from = 0;
    const rates: number[] = [];
    const started = performance.now();
    let importCpuUs = 0;
    for (const checkpoint of checkpoints) {
      const cpu = process.cpuUsage();
      let sliceCpu = process.cpuUsage();
      let sliceIo = ioCalls();
      await load.importRange(from, checkpoint, IN_FLIGHT, SLICE, (done, rate) => {
        rates.push(rate);
        // Per slice, whether an import costs more as n grows: the gateway's CPU, the file reads
        // SQLite's cache missed (read calls), the heap the GC walks.
        const used = process.cpuUsage(sliceCpu);
        const io = ioCalls();
        console.log(
          `  imported ${fmt(done)}: ${fmt(rate)}/s in the last ${fmt(SLICE)} (${(rate / (rates[0] as number)).toFixed(2)} × the first)` +
            ` | ${fmt((used.user + used.system) / SLICE)} µs CPU, ${((io.reads - sliceIo.reads) / SLICE).toFixed(1)} read and ${((io.writes - sliceIo.writes) / SLICE).toFixed(1)} write calls an import` +
            ` | heap ${mb(process.memoryUsage().heapUsed)} | load ${loadAverage()}`,
        );
        sliceCpu = process.cpuUsage();
        sliceIo = io;
      });
      const used = process.cpuUsage(cpu);
      importCpuUs += used.user + used.system;
      from = checkpoint;
      await measureAt(base, load, storage, checkpoint, size, ab);
    }
    const total = N / ((performance.now() - started) / 1000);
    console.log(
      `  import through HTTP: ${fmt(rates.length ? rates.reduce((a, b) => a + b) / rates.length : total)}/s mean of slices; slowest slice ${(Math.min(...rates) / (rates[0] ?? 1)).toFixed(2)} × the first`,
    );
    console.log(
      `  CPU per import through HTTP: ${fmt(importCpuUs / N)} µs (this process, every thread${CLIENT === 'inline' ? ', the client included' : ''})`,
    );
    if (BATCHED > 0) {
      const t0 = performance.now();
      for (let from = 0; from < BATCHED; from += 256) {
        await Promise.all(
          Array.from({ length: Math.min(256, BATCHED - from) }, (_, k) => {
            const { credentials, ...rest } = connection(N + from + k);
            return gateway.connections.upsert('bench', { ...rest, credentials: credentials as never }, 'import');
          }),
        );
      }
      console.log(
        `  batched through the service (256 at a time): ${fmt(BATCHED / ((performance.now() - t0) / 1000))}/s for ${fmt(BATCHED)} more`,
      );
    }
    console.log(`  RSS growth over the run: ${mb(process.memoryUsage().rss - rss0)}`);
    if (LOGS === 'file') {
      logger.flush();
      console.log(`  request log: ${mb(statSync(logFile).size)}`);
    }
  } finally {
    load.close();
    rmSync(logDir, { recursive: true, force: true });
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await gateway.close();
    provider.server.close();
  }
}

for (const kind of String(args.stores).split(',')) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
    const path = join(dir, 'portico.db');
    // --page-reader off: SQLite's listing pages read on the gateway's thread (as before the worker).
    const storage = createSqliteStorage({
      path,
      pageReader: PAGE_READER !== 'off',
      checkpoints: args.checkpoints === 'worker',
    });
    const fileSize = (suffix: string) => statSync(path + suffix, { throwIfNoEntry: false })?.size ?? 0;
    // The WAL shown apart: under steady imports it holds the frames between two restarts.
    const size = async () => ({
      bytes: fileSize('') + fileSize('-wal'),
      detail: `of which WAL ${mb(fileSize('-wal'))}`,
    });
    try {
      await bench('SQLite', storage, size);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  } else if (kind === 'redis') {
    const url = String(args['redis-url']);
    const prefix = `portico-bench:${randomBytes(4).toString('hex')}:`;
    const client = createClient({ url });
    await client.connect();
    const used = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1] ?? 0);
    const before = await used();
    const storage = createRedisStorage({ url, prefix, pageReader: PAGE_READER !== 'off' });
    try {
      await bench('Redis', storage, async () => (await used()) - before);
    } finally {
      await storage.close();
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
        if (keys.length > 0) await client.unlink(keys);
      await client.close();
    }
  } else if (kind === 'postgres') {
    const url = String(args['postgres-url']);
    const schema = `portico_bench_${randomBytes(4).toString('hex')}`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const storage = createPostgresStorage({ url, schema });
    const size = async () =>
      Number(
        (
          await client.query(
            'SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = $2',
            [schema, 'r'],
          )
        ).rows[0]?.n ?? 0,
      );
    try {
      await bench('PostgreSQL', storage, size);
    } finally {
      await storage.close();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  } else {
    throw new Error(`--stores: unknown store "${kind}" (sqlite, redis, postgres)`);
  }
}
