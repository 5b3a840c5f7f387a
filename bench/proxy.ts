/*
 * `npm run bench`: one upstream, measured directly, through a bare Koa + http-proxy forwarder
 * (alone in its process) and through Portico (API key, OAuth2, APP; in process, and as the
 * standalone server), every measured process in `--processes` sets measured one after another,
 * then one very large body through Portico each way
 * while the gateway's RSS is sampled. Everything runs on 127.0.0.1 and stops by itself.
 *
 *   --duration <s>       measured seconds per target and process (default 4)
 *   --slice <ms>         the targets take turns in slices this long (default 250)
 *   --warmup <s>         unmeasured seconds per target before measuring (default 1)
 *   --connections <n>    concurrent keep-alive connections (default 32)
 *   --sizes <bytes,…>    response body sizes (default 1024,1048576)
 *   --upload             send the bodies as request bodies (POST) instead of downloading them
 *   --large <bytes>      size of the large-body run, 0 to skip (default 1073741824)
 *   --verbose            print every cycle of slices as it ends (req/s, CPU per request, major GCs)
 *   --standalone-store <url>  the standalone server's store (default: SQLite in a temp folder); `none` skips it
 *   --pin <on|off>       load generator on CPU 0, every proxy process on CPU 1 (default on; taskset)
 *   --processes <n>      every measured process runs n times over (default 3); a row is the median of its n
 *   --freeze <on|off>    only the process whose turn it is runs; the set's others are stopped (default on)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { download, upload } from './proxy/large-body.js';
import { createClient, percentile, runLoad } from './proxy/load.js';
import { targets, type Target } from './proxy/scenarios.js';
import { createFreezer, type Freezer } from './proxy/freeze.js';
import { pinToCpu } from './proxy/pin.js';
import { startBareProcess, type BareProcess } from './proxy/bare-process.js';
import { startStandalone, type Standalone } from './proxy/standalone.js';
import { startUpstream } from './proxy/upstream.js';

interface Options {
  duration: number;
  warmup: number;
  connections: number;
  sizes: number[];
  upload: boolean;
  slice: number;
  large: number;
  verbose: boolean;
  /** undefined: SQLite (the default configuration); null: no standalone rows. */
  standaloneStore: string | undefined | null;
  /** The load generator on CPU 0 and the proxy processes on CPU 1 (bench/proxy/pin.ts). */
  pin: boolean;
  /** How many processes of each kind: a row's figure is the median of its processes'. */
  processes: number;
  /** The in-process stack's process set up as README's "Mounting" says (tuneServerProcess, settleHttpShapes). */
  tuned: boolean;
  /** Every process of a set but the one whose turn it is stopped (bench/proxy/freeze.ts). */
  freeze: boolean;
}

const proxyUsage = `bench [options]   (bench/README.md)
  --duration <s>             measured seconds per target and process   default 4
  --slice <ms>               the targets take turns in slices this long   default 250
  --warmup <s>               unmeasured seconds per target   default 1
  --connections <n>          concurrent keep-alive connections   default 32
  --sizes <bytes,…>          body sizes   default 1024,1048576
  --upload                   send the bodies as request bodies
  --large <bytes>            the large-body run (0 skips it)   default 1073741824
  --verbose                  print each cycle
  --standalone-store <url>   the standalone server's store (none skips its rows)   default SQLite in a temp folder
  --processes <n>            every measured process runs n times over   default 3
  --pin on|off               harness on CPU 0, proxies on CPU 1   default on
  --tuned on|off             the in-process stack's process set up as README's Mounting says   default on
  --freeze on|off            between its turns, every other process of the set stopped   default on`;

function parseOptions(argv: string[]): Options {
  const options: Options = {
    duration: 4,
    slice: 250,
    warmup: 1,
    connections: 32,
    sizes: [1024, 1024 * 1024],
    upload: false,
    large: 1024 ** 3,
    verbose: false,
    standaloneStore: undefined,
    pin: true,
    processes: 3,
    tuned: true,
    freeze: true,
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(proxyUsage);
    process.exit(0);
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    const onOff = () => {
      const next = value();
      if (next !== 'on' && next !== 'off') throw new Error(`${flag} takes on or off`);
      return next === 'on';
    };
    const number = (min: number, max: number) => {
      const n = Number(value());
      if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${flag} must be a number from ${min} to ${max}`);
      return n;
    };
    switch (flag) {
      case '--duration':
        options.duration = number(0.5, 120);
        break;
      case '--warmup':
        options.warmup = number(0, 30);
        break;
      case '--connections':
        options.connections = Math.round(number(1, 1024));
        break;
      case '--slice':
        options.slice = Math.round(number(50, 10_000));
        break;
      case '--large':
        options.large = Math.round(number(0, 16 * 1024 ** 3));
        break;
      case '--upload':
        options.upload = true;
        break;
      case '--verbose':
        options.verbose = true;
        break;
      case '--pin':
        options.pin = onOff();
        break;
      case '--tuned':
        options.tuned = onOff();
        break;
      case '--freeze':
        options.freeze = onOff();
        break;
      case '--processes':
        options.processes = Math.round(number(1, 8));
        break;
      case '--standalone-store': {
        const url = value();
        options.standaloneStore = url === 'none' ? null : url;
        break;
      }
      case '--sizes':
        options.sizes = value()
          .split(',')
          .map((s) => {
            const n = Number(s);
            if (!Number.isInteger(n) || n < 0 || n > 64 * 1024 * 1024)
              throw new Error('--sizes takes byte counts up to 64 MiB, comma-separated');
            return n;
          });
        break;
      default:
        throw new Error(`unknown option ${flag} (--help lists the options)`);
    }
  }
  return options;
}

async function start(
  file: string,
  args: string[] = [],
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; ready: Record<string, number> }> {
  const child = fork(new URL(file, import.meta.url), args, {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [message] = (await once(child, 'message')) as [{ type: string } & Record<string, number>];
  if (message.type !== 'ready') throw new Error(`${file} did not start`);
  return { child, ready: message };
}

const ask = async <T>(child: ChildProcess, type: string, answer: string): Promise<T> => {
  child.send({ type });
  for (;;) {
    const [message] = (await once(child, 'message')) as [{ type: string } & T];
    if (message.type === answer) return message;
  }
};

const sizeLabel = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`;
const pad = (text: string, width: number, right = false) => (right ? text.padStart(width) : text.padEnd(width));

/** One target in one process. */
interface Row {
  size: number;
  target: Target;
  rps: number;
  /** Milliseconds per completed request, sorted. */
  latencies: number[];
  errors: number;
  cpuPerRequest: number | undefined;
  /** Req/s in each cycle's slice. */
  slices: number[];
}

/** One target over its processes: the median process's req/s and CPU, latencies pooled. */
interface Combined {
  size: number;
  target: Target;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuPerRequest: number | undefined;
  /** Its processes, in replica order. */
  processes: Row[];
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function combine(rows: Row[]): Combined[] {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = `${row.size} ${row.target.name}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()].map((processes) => {
    const first = processes[0] as Row;
    const latencies = processes.flatMap((p) => p.latencies).sort((a, b) => a - b);
    const cpu = processes.map((p) => p.cpuPerRequest).filter((c): c is number => c !== undefined);
    return {
      size: first.size,
      target: first.target,
      rps: median(processes.map((p) => p.rps)),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      errors: processes.reduce((sum, p) => sum + p.errors, 0),
      cpuPerRequest: cpu.length > 0 ? median(cpu) : undefined,
      processes: processes.sort((a, b) => a.target.replica - b.target.replica),
    };
  });
}

/** What the proxies' process has used so far: CPU microseconds, and its garbage-collection pauses. */
interface Usage {
  micros: number;
  gc: { minor: number; major: number; ms: number };
}
type CpuClock = (target: Target) => Promise<Usage>;
/** Lets the process serving `target` run, and stops the set's others (bench/proxy/freeze.ts). */
type Turn = (target: Target) => void;

/** One set of the measured processes: the bare forwarder, the proxies' child (Portico in process), the standalone server, and it with metrics. */
interface Replica {
  bare: BareProcess;
  proxies: { child: ChildProcess; ready: Record<string, number> };
  standalone: Standalone | undefined;
  metrics: Standalone | undefined;
  freezer: Freezer;
}

async function measure(options: Options, list: Target[], size: number, cpu: CpuClock, turn: Turn): Promise<Row[]> {
  const body = options.upload ? Buffer.alloc(size, 'u') : undefined;
  const loads = list.map((target) => ({
    target,
    client: createClient(options.connections),
    load: {
      port: target.port,
      path: options.upload ? `${target.prefix}/sink` : `${target.prefix}/bytes?size=${size}`,
      method: options.upload ? ('POST' as const) : ('GET' as const),
      headers: { ...target.headers, ...(body ? { 'content-type': 'application/octet-stream' } : {}) },
      body,
      connections: options.connections,
    },
    seconds: 0,
    requests: 0,
    errors: 0,
    cpu: 0,
    latencies: [] as number[],
    slices: [] as number[],
  }));
  try {
    if (options.warmup > 0)
      for (const { target, load, client } of loads) {
        turn(target);
        await runLoad({ ...load, durationMs: options.warmup * 1000 }, client);
      }
    // Short slices, round robin, the first target moving by one each cycle: a busy spell on a shared
    // machine that outlasts a cycle falls on every target alike instead of on whichever ran then.
    const cycles = Math.max(1, Math.round((options.duration * 1000) / options.slice));
    for (let cycle = 0; cycle < cycles; cycle++) {
      const line: string[] = [];
      for (let i = 0; i < loads.length; i++) {
        const entry = loads[(cycle + i) % loads.length] as (typeof loads)[number];
        turn(entry.target);
        const before = await cpu(entry.target);
        const result = await runLoad({ ...entry.load, durationMs: options.slice }, entry.client);
        const after = await cpu(entry.target);
        entry.seconds += result.seconds;
        entry.requests += result.requests;
        entry.errors += result.errors;
        entry.slices.push(result.seconds > 0 ? result.requests / result.seconds : 0);
        entry.cpu += after.micros - before.micros;
        for (const l of result.latencies) entry.latencies.push(l);
        if (options.verbose) {
          const perRequest =
            entry.target.name === 'direct' || result.requests === 0
              ? ''
              : ` ${((after.micros - before.micros) / result.requests).toFixed(0)} µs`;
          const gc = after.gc.major > before.gc.major ? ` (${after.gc.major - before.gc.major} major GC)` : '';
          line.push(
            `${entry.target.name}#${entry.target.replica} ${Math.round(result.requests / result.seconds)}/s${perRequest}${gc}`,
          );
        }
      }
      if (options.verbose) console.log(`  ${sizeLabel(size)} cycle ${cycle + 1}/${cycles}: ${line.join(', ')}`);
    }
  } finally {
    for (const { client } of loads) client.destroy();
  }
  return loads.map((entry) => {
    return {
      size,
      target: entry.target,
      rps: entry.seconds > 0 ? entry.requests / entry.seconds : 0,
      latencies: entry.latencies.sort((a, b) => a - b),
      errors: entry.errors,
      slices: entry.slices,
      // The direct calls do not touch the proxies' process.
      cpuPerRequest: entry.target.name === 'direct' || entry.requests === 0 ? undefined : entry.cpu / entry.requests,
    };
  });
}

/**
 * How noisy the run was: the ratio cycle by cycle, each process's slice against the bare
 * forwarder's of the same replica in the same cycle, over every process.
 */
function spread(row: Combined, bare: Combined): string {
  const ratios = row.processes
    .flatMap((p, r) => p.slices.map((rps, i) => rps / (bare.processes[r]?.slices[i] ?? Number.NaN)))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (ratios.length < 4) return '';
  const pct = (p: number) => `${(percentile(ratios, p) * 100).toFixed(0)}%`;
  return `; cycle by cycle: median ${pct(0.5)}, middle half ${pct(0.25)}–${pct(0.75)}`;
}

/** Each process's req/s (or CPU per request) against the bare forwarder's of its set, measured in the same turns. */
const ratios = (row: Combined, bare: Combined, value: (p: Row) => number | undefined = (p) => p.rps): number[] =>
  row.processes
    .map((p, r) => (value(p) ?? Number.NaN) / (value(bare.processes[r] as Row) ?? Number.NaN))
    .filter(Number.isFinite);

/** A row against the bare forwarder: the median of its sets' ratios (each set measured in its own turns). */
const againstBare = (row: Combined, bare: Combined, value?: (p: Row) => number | undefined): number =>
  median(ratios(row, bare, value));

/** Each set's ratio: how far the processes of one row differ. */
const perProcess = (row: Combined, bare: Combined): string =>
  row.processes.length > 1
    ? `; its ${row.processes.length} processes ${ratios(row, bare)
        .map((ratio) => `${(ratio * 100).toFixed(0)}%`)
        .join(' ')}`
    : '';

function printTable(rows: Combined[]) {
  console.log(
    `\n${pad('body', 9)} ${pad('target', 38)} ${pad('req/s', 9, true)} ${pad('p50 ms', 8, true)} ${pad('p99 ms', 8, true)} ${pad('vs bare', 8, true)} ${pad('proxy CPU µs/req', 17, true)} ${pad('CPU vs bare', 12, true)}`,
  );
  for (const row of rows) {
    const bare = rows.find((r) => r.size === row.size && r.target.name === 'bare');
    const ratio = bare && bare.rps > 0 ? againstBare(row, bare).toFixed(2) : '-';
    const cpu = row.cpuPerRequest === undefined ? '-' : row.cpuPerRequest.toFixed(0);
    const cpuRatio =
      row.cpuPerRequest !== undefined && bare?.cpuPerRequest
        ? againstBare(row, bare, (p) => p.cpuPerRequest).toFixed(2)
        : '-';
    console.log(
      `${pad(sizeLabel(row.size), 9)} ${pad(row.target.label, 38)} ${pad(Math.round(row.rps).toString(), 9, true)} ${pad(row.p50.toFixed(2), 8, true)} ${pad(row.p99.toFixed(2), 8, true)} ${pad(ratio, 8, true)} ${pad(cpu, 17, true)} ${pad(cpuRatio, 12, true)}${row.errors ? `  (${row.errors} errors)` : ''}`,
    );
  }
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  console.log(
    `Machine: ${cpus().length} CPU(s), load average ${load()} (other work on the machine skews req/s; CPU µs/req is steadier).`,
  );
  console.log(
    `Portico proxy bench: ${options.duration} s per target in ${options.slice} ms turns (+${options.warmup} s warm-up), ${options.connections} connections, ${options.upload ? 'uploads' : 'downloads'} of ${options.sizes.map(sizeLabel).join(' and ')}; Node ${process.version}.`,
  );
  // The upstream shares this process with the load generator: the proxies get the other core.
  const pinned = options.pin && pinToCpu(process.pid, 0);
  const proxyCpu = <T extends { pid?: number | undefined } | undefined>(proc: T): T => {
    if (pinned) pinToCpu(proc?.pid, 1);
    return proc;
  };
  console.log(
    pinned
      ? 'Pinned (taskset): load generator and upstream on CPU 0, every proxy process on CPU 1 (--pin off to let the scheduler place them).'
      : 'Not pinned: the scheduler places every process (CPU per call then moves with where each process lands).',
  );
  console.log(
    options.tuned
      ? "In-process stack: its process calls tuneServerProcess() and settleHttpShapes() as README's Mounting says (--tuned off: as an application that does neither)."
      : 'In-process stack: its process calls neither tuneServerProcess() nor settleHttpShapes() (--tuned off).',
  );
  console.log(
    options.freeze
      ? "Turns: only the process whose turn it is runs; the set's others are stopped (SIGSTOP) until theirs (--freeze off: all run all the time)."
      : 'Turns: every process of the set runs all the time, idle between its turns (--freeze off).',
  );
  const upstream = await startUpstream();
  const running = new Set<Replica>();
  const stopSet = (replica: Replica) => {
    // A stopped process acts on no signal but SIGKILL: continued before it is told to end.
    replica.freezer.thawAll();
    replica.bare.stop();
    replica.proxies.child.kill();
    replica.standalone?.stop();
    replica.metrics?.stop();
    running.delete(replica);
  };
  const startSet = async (): Promise<Replica> => {
    const bare = proxyCpu(await startBareProcess(upstream.port));
    const proxies = await start(
      './proxy/targets.js',
      [String(upstream.port), options.tuned ? 'tuned' : 'untuned'],
      ['--expose-gc'],
    );
    proxyCpu(proxies.child);
    const standalone =
      options.standaloneStore === null ? undefined : await startStandalone(upstream.port, options.standaloneStore);
    proxyCpu(standalone);
    // The same server with metrics on (its own store): the metrics' cost in the default configuration.
    const metrics =
      options.standaloneStore === null
        ? undefined
        : await startStandalone(upstream.port, options.standaloneStore, {
            SERVICE_METRICS_TOKEN: 'mt_bench_0123456789abcdef',
          });
    proxyCpu(metrics);
    const freezer = createFreezer([bare, proxies.child, standalone, metrics], options.freeze);
    const replica = { bare, proxies, standalone, metrics, freezer };
    running.add(replica);
    return replica;
  };
  const stop = () => {
    upstream.server.close();
    upstream.server.closeAllConnections();
    for (const replica of running) stopSet(replica);
  };
  const noGc = { minor: 0, major: 0, ms: 0 };
  const cpuOf =
    (replica: Replica): CpuClock =>
    async (target) => {
      if (target.process === 'proxies') return ask<Usage>(replica.proxies.child, 'cpu', 'cpu');
      // The direct calls touch no proxy process.
      const server = target.process === 'none' ? undefined : replica[target.process];
      return { micros: server?.cpuMicros() ?? Number.NaN, gc: noGc };
    };
  const turnOf =
    (replica: Replica): Turn =>
    (target) => {
      const serving =
        target.process === 'none'
          ? undefined
          : target.process === 'proxies'
            ? replica.proxies.child
            : replica[target.process];
      replica.freezer.runOnly(serving);
    };
  try {
    const measured: Row[] = [];
    // One set of processes at a time, started just before its turn and stopped after it, its
    // targets taking turns: a process left idle runs slower afterwards. Measured: the standalone
    // server at 1.3–1.4 × its CPU per call with all three sets in one rotation (10.75 s between
    // its turns; 1.0 with --no-memory-reducer: V8 shrinks the heap of a process idle for about
    // eight seconds), and Portico's rows at 0.5–0.85 × in the sets that had waited 75 and 150 s
    // for their turn, against 1.0 in the first. Within a set the rotation is as short as with one
    // process of each kind.
    let list: Target[] = [];
    for (let r = 0; r < options.processes; r++) {
      const replica = await startSet();
      try {
        const set = targets(
          {
            upstream: upstream.port,
            bare: replica.bare.port,
            portico: replica.proxies.ready.porticoPort as number,
            logged: replica.proxies.ready.loggedPort as number,
            standalone: replica.standalone?.port,
            metrics: replica.metrics?.port,
          },
          r,
        );
        if (r === 0) list = set;
        for (const size of options.sizes)
          measured.push(...(await measure(options, set, size, cpuOf(replica), turnOf(replica))));
      } finally {
        // The first set waits, stopped, for the large-body run when there is one.
        if (options.large === 0 || r > 0) stopSet(replica);
        else replica.freezer.runOnly(undefined);
      }
    }
    const rows = combine(measured);
    printTable(rows);

    const verdicts: string[] = [];
    for (const size of options.sizes) {
      const bare = rows.find((r) => r.size === size && r.target.name === 'bare');
      const same = rows.find((r) => r.size === size && r.target.name === 'bare-same');
      for (const row of rows.filter((r) => r.size === size && r.target.name.startsWith('portico'))) {
        const ratio = bare ? againstBare(row, bare) : 0;
        const sameRatio = same
          ? `; ${(againstBare(row, same) * 100).toFixed(0)}% of the bare forwarder sent the same headers`
          : '';
        verdicts.push(
          `${ratio >= 0.95 ? 'PASS' : 'FAIL'}  ${row.target.label}, ${sizeLabel(size)}: ${(ratio * 100).toFixed(0)}% of the bare forwarder's req/s (target ≥ 95%)${bare ? `${perProcess(row, bare)}${spread(row, bare)}` : ''}${sameRatio}`,
        );
      }
    }
    if (options.large > 0) {
      const apiKey = list.find((t) => t.name === 'portico-silent-api-key') as Target;
      for (const [direction, transfer] of [
        ['upload', upload],
        ['download', download],
      ] as const) {
        const { proxies, freezer } = [...running][0] as Replica;
        freezer.runOnly(proxies.child);
        await ask(proxies.child, 'rss-start', 'rss-started');
        const result = await transfer(apiKey, options.large);
        const rss = await ask<{ baseline: number; peak: number }>(proxies.child, 'rss-stop', 'rss');
        const grown = (rss.peak - rss.baseline) / 1024 / 1024;
        const speed = options.large / 1024 / 1024 / result.seconds;
        verdicts.push(
          `${result.ok && grown < 64 ? 'PASS' : 'FAIL'}  ${sizeLabel(options.large)} ${direction} through Portico: ${result.ok ? 'intact' : 'NOT INTACT'}, ${speed.toFixed(0)} MiB/s, gateway RSS grew ${grown.toFixed(1)} MiB (target < 64 MiB)`,
        );
      }
    }
    console.log(`\n${verdicts.join('\n')}`);
    console.log(`\nLoad average at the end: ${load()}.`);
  } finally {
    stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
