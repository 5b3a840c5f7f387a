/**
 * Imports through HTTP, two builds side by side (issue 17): each build's standalone server in a
 * process of its own (as deployed, request logs off), this process the client. Slices of
 * `--slice` imports (16 in flight) alternate between the two, the order flipped every round,
 * and each slice's server CPU (every thread, from /proc) is divided by its imports: on a shared
 * machine the CPU per import and the per-round ratio say more than the rates.
 *
 *   npm run build && node dist/bench/connections-ab.js --a /path/to/other/dist --b dist [--rounds 10] [--slice 1000] [--store sqlite|redis|postgres]
 *     [--store-delay-ms 0.5] [--seed-a a.db --seed-b b.db --from n] [--port 39101]
 *
 * `--a` / `--b`: a build's `dist` folder (e.g. `git archive <commit> | tar -x` elsewhere, then
 * `npm run build` there). With `--store postgres`, each server gets a schema of its own in
 * `--postgres-url`'s database, dropped after. With `--store redis`, `--redis-url` names a database the bench may fill
 * (emptied before and after; default redis://127.0.0.1:6379/12 and the next database for B).
 * `--store-delay-ms`: both servers reach Redis or PostgreSQL through a relay that holds each chunk that long
 * each way, as a store across a network would: what a round trip less is worth there.
 * `--seed-a` / `--seed-b` (SQLite): each side starts on a copy of that store, already holding
 * conn-0 … conn-(n-1) (`--from n`), so its imports are measured at that size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { call, connection, expectOk, secretKey } from './connections-load.js';
import { benchArgs } from './args.js';
import { startDelayRelay, type DelayRelay } from './delay-relay.js';

const args = benchArgs('connections-ab', {
  a: { type: 'string', help: "build A's dist folder, the baseline (required)" },
  b: { type: 'string', help: "build B's dist folder, compared with A (required)" },
  rounds: {
    type: 'string',
    default: '10',
    help: 'measured rounds of one slice per build, the order flipped every round (after a warm-up slice each)',
  },
  slice: { type: 'string', default: '1000', help: 'imports per slice, 16 in flight' },
  store: {
    type: 'string',
    default: 'sqlite',
    choices: ['sqlite', 'redis', 'postgres'],
    help: "both servers' store: a SQLite file in a temporary folder each, Redis at --redis-url, or PostgreSQL at --postgres-url",
  },
  'postgres-url': {
    type: 'string',
    default: process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    help: 'with --store postgres: the database, a schema of its own for each server, dropped after (POSTGRES_URL sets the default)',
  },
  'redis-url': {
    type: 'string',
    default: 'redis://127.0.0.1:6379/12',
    help: "with --store redis: A's database, B gets the next one; both emptied before and after",
  },
  'store-delay-ms': {
    type: 'string',
    default: '0',
    help: 'with --store redis or postgres: ms each way of a relay between the servers and the store, as across a network (0: direct)',
  },
  'seed-a': { type: 'string', help: 'SQLite file A starts from (copied), already holding --from connections' },
  'seed-b': { type: 'string', help: 'SQLite file B starts from (copied), already holding --from connections' },
  from: {
    type: 'string',
    default: '0',
    help: 'connections the seeded stores already hold: imports start at conn-<from>',
  },
  port: { type: 'string', default: '39101', help: "A's HTTP port on 127.0.0.1; B's is the next one" },
});
if (!args.a || !args.b) throw new Error('--a and --b: the dist folders of the two builds');
const ROUNDS = Number(args.rounds);
const SLICE = Number(args.slice);
const IN_FLIGHT = 16;

interface Side {
  name: string;
  base: string;
  child: ChildProcess;
  next: number;
  cpuUs: number[];
  rates: number[];
  /** Bytes and write calls per import (/proc/<pid>/io): the WAL's frames, checkpoints and HTTP answers. */
  wchar: number[];
  syscw: number[];
  /** With --store redis: the Redis server's CPU (µs) and commands per import (slices run one at a time). */
  redisCpuUs: number[];
  redisCommands: number[];
  /** Read calls per import: pages SQLite's cache did not hold, read from the file (the OS's cache, mostly). */
  syscr: number[];
}

/** utime + stime of every thread of the process, in µs (clock ticks of 10 ms). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Bytes written and write system calls so far (every thread): these do not depend on the machine's load. */
function writes(pid: number): { wchar: number; syscw: number; syscr: number } {
  const text = readFileSync(`/proc/${pid}/io`, 'utf8');
  const read = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(text)?.[1] ?? NaN);
  return { wchar: read('wchar'), syscw: read('syscw'), syscr: read('syscr') };
}

const redisUrl = (name: string) => {
  const url = new URL(String(args['redis-url']));
  if (name === 'B') url.pathname = `/${Number(url.pathname.slice(1) || 0) + 1}`;
  return url.toString();
};

/** The Redis server's CPU so far (µs, user + sys) and commands processed: the whole server's, so other users' show too. */
async function redisStats(): Promise<{ cpuUs: number; commands: number }> {
  if (args.store !== 'redis') return { cpuUs: NaN, commands: NaN };
  const client = createClient({ url: redisUrl('A') });
  await client.connect();
  const text = String(await client.info());
  await client.close();
  const read = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(text)?.[1] ?? NaN);
  return { cpuUs: (read('used_cpu_user') + read('used_cpu_sys')) * 1e6, commands: read('total_commands_processed') };
}

async function emptyRedis(url: string) {
  const client = createClient({ url });
  await client.connect();
  await client.flushDb();
  await client.close();
}

/** The servers' way to Redis or PostgreSQL: direct, or through `--store-delay-ms`'s relay. */
let relay: DelayRelay | undefined;
const serverRedisUrl = (name: string) => {
  const url = new URL(redisUrl(name));
  if (relay) url.port = String(relay.port);
  return url.toString();
};

/** With --store postgres: each server's schema, dropped at the end. */
const schemas: string[] = [];
const postgresUrl = (name: string) => {
  const schema = `portico_ab_${name.toLowerCase()}_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  const url = new URL(String(args['postgres-url']));
  url.searchParams.set('schema', schema);
  if (relay) url.port = String(relay.port);
  return url.toString();
};
async function dropSchemas() {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: String(args['postgres-url']) });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

async function start(name: string, dist: string, port: number, dir: string): Promise<Side> {
  const storeUrl =
    args.store === 'redis'
      ? serverRedisUrl(name)
      : args.store === 'postgres'
        ? postgresUrl(name)
        : `sqlite://${join(dir, `${name}.db`)}`;
  if (args.store === 'redis') await emptyRedis(redisUrl(name));
  const seed = name === 'A' ? args['seed-a'] : args['seed-b'];
  if (seed) copyFileSync(seed, join(dir, `${name}.db`));
  const child = spawn(process.execPath, [resolve(dist, 'adapters/standalone/main.js')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      SERVICE_PORT: String(port),
      SERVICE_STORE_URL: storeUrl,
      SERVICE_SECRET_KEY: secretKey,
      SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      SERVICE_LOG_LEVEL: 'silent',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await call(base, 'GET', '/integrations');
      break;
    } catch (error) {
      if (i > 3000) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (!seed)
    await expectOk(call(base, 'POST', '/integrations', { unique_key: 'crm', provider: 'stripe' }), 'integration');
  return {
    name,
    base,
    child,
    next: Number(args.from),
    cpuUs: [],
    rates: [],
    wchar: [],
    syscw: [],
    syscr: [],
    redisCpuUs: [],
    redisCommands: [],
  };
}

async function slice(side: Side) {
  const to = side.next + SLICE;
  let next = side.next;
  const t0 = performance.now();
  const c0 = cpuUs(side.child.pid as number);
  const w0 = writes(side.child.pid as number);
  const r0 = await redisStats();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < to) await expectOk(call(side.base, 'POST', '/connections', connection(next++)), 'import');
    }),
  );
  side.rates.push(SLICE / ((performance.now() - t0) / 1000));
  side.cpuUs.push((cpuUs(side.child.pid as number) - c0) / SLICE);
  const w1 = writes(side.child.pid as number);
  side.wchar.push((w1.wchar - w0.wchar) / SLICE);
  side.syscw.push((w1.syscw - w0.syscw) / SLICE);
  side.syscr.push((w1.syscr - w0.syscr) / SLICE);
  const r1 = await redisStats();
  side.redisCpuUs.push((r1.cpuUs - r0.cpuUs) / SLICE);
  // The two INFO calls of the slice itself are not the import's.
  side.redisCommands.push((r1.commands - r0.commands - 2) / SLICE);
  side.next = to;
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? NaN;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const dir = mkdtempSync(join(tmpdir(), 'portico-ab-'));
const sides: Side[] = [];
try {
  const port = Number(args.port);
  const delayMs = Number(args['store-delay-ms']);
  if (args.store !== 'sqlite' && delayMs > 0) {
    const direct = new URL(args.store === 'redis' ? redisUrl('A') : String(args['postgres-url']));
    const storePort = Number(direct.port || (args.store === 'redis' ? 6379 : 5432));
    relay = await startDelayRelay({ host: direct.hostname, port: storePort }, delayMs);
  }
  sides.push(await start('A', args.a, port, dir), await start('B', args.b, port + 1, dir));
  const [A, B] = sides as [Side, Side];
  // One slice each to warm up (JIT, caches), not counted.
  for (const side of sides) {
    await slice(side);
    side.cpuUs.length = side.rates.length = side.wchar.length = side.syscw.length = side.syscr.length = 0;
    side.redisCpuUs.length = side.redisCommands.length = 0;
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? [B, A] : [A, B]) await slice(side);
    const last = (s: Side) => `${Math.round(s.rates.at(-1) ?? 0)}/s ${Math.round(s.cpuUs.at(-1) ?? 0)} µs`;
    console.log(`round ${round + 1}: A ${last(A)} | B ${last(B)} | load ${load()}`);
  }
  for (const s of sides)
    console.log(
      `${s.name}: median ${Math.round(median(s.rates))}/s, ${Math.round(median(s.cpuUs))} µs of server CPU per import, ` +
        `${(median(s.wchar) / 1024).toFixed(1)} KiB in ${median(s.syscw).toFixed(1)} write calls and ${median(s.syscr).toFixed(1)} read calls per import (${s.next} imported)` +
        (args.store === 'redis'
          ? `; Redis server: ${Math.round(median(s.redisCpuUs))} µs of CPU and ${median(s.redisCommands).toFixed(1)} commands per import`
          : ''),
    );
  const ratio = (pick: (s: Side) => number[]) => median(pick(A).map((a, i) => (pick(B)[i] ?? NaN) / a)).toFixed(3);
  console.log(
    `B / A, median of the rounds' ratios: CPU per import ${ratio((s) => s.cpuUs)}, rate ${ratio((s) => s.rates)}` +
      (args.store === 'redis' ? `, Redis CPU per import ${ratio((s) => s.redisCpuUs)}` : ''),
  );
} finally {
  for (const s of sides) s.child.kill();
  await relay?.close();
  await dropSchemas();
  rmSync(dir, { recursive: true, force: true });
  if (args.store === 'redis') for (const name of ['A', 'B']) await emptyRedis(redisUrl(name));
  process.exit(0);
}
