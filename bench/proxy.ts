/*
 * `npm run bench`: one upstream, measured directly, through a bare Koa + http-proxy forwarder
 * and through Portico (API key, OAuth2, APP), then one very large body through Portico each way
 * while the gateway's RSS is sampled. Everything runs on 127.0.0.1 and stops by itself.
 *
 *   --duration <s>       measured seconds per target (default 6)
 *   --slice <ms>         the targets take turns in slices this long (default 250)
 *   --warmup <s>         unmeasured seconds per target before measuring (default 1)
 *   --connections <n>    concurrent keep-alive connections (default 32)
 *   --sizes <bytes,…>    response body sizes (default 1024,1048576)
 *   --upload             send the bodies as request bodies (POST) instead of downloading them
 *   --large <bytes>      size of the large-body run, 0 to skip (default 1073741824)
 *   --verbose            print every cycle of slices as it ends (req/s, CPU per request, major GCs)
 *   --standalone-store <url>  the standalone server's store (default: SQLite in a temp folder); `none` skips it
 *   --pin <on|off>       load generator on CPU 0, every proxy process on CPU 1 (default on; taskset)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { download, upload } from './proxy/large-body.js';
import { createClient, percentile, runLoad } from './proxy/load.js';
import { targets, type Ports, type Target } from './proxy/scenarios.js';
import { pinToCpu } from './proxy/pin.js';
import { startStandalone } from './proxy/standalone.js';
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
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    duration: 6,
    slice: 250,
    warmup: 1,
    connections: 32,
    sizes: [1024, 1024 * 1024],
    upload: false,
    large: 1024 ** 3,
    verbose: false,
    standaloneStore: undefined,
    pin: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
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
      case '--pin': {
        const pin = value();
        if (pin !== 'on' && pin !== 'off') throw new Error('--pin takes on or off');
        options.pin = pin === 'on';
        break;
      }
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
        throw new Error(`unknown option ${flag} (see bench/README.md)`);
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

interface Row {
  size: number;
  target: Target;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuPerRequest: number | undefined;
  slices: number[];
}

/** What the proxies' process has used so far: CPU microseconds, and its garbage-collection pauses. */
interface Usage {
  micros: number;
  gc: { minor: number; major: number; ms: number };
}
type CpuClock = (target: Target) => Promise<Usage>;

async function measure(options: Options, list: Target[], size: number, cpu: CpuClock): Promise<Row[]> {
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
      for (const { load, client } of loads) await runLoad({ ...load, durationMs: options.warmup * 1000 }, client);
    // Short slices, round robin, the first target moving by one each cycle: a busy spell on a shared
    // machine that outlasts a cycle falls on every target alike instead of on whichever ran then.
    const cycles = Math.max(1, Math.round((options.duration * 1000) / options.slice));
    for (let cycle = 0; cycle < cycles; cycle++) {
      const line: string[] = [];
      for (let i = 0; i < loads.length; i++) {
        const entry = loads[(cycle + i) % loads.length] as (typeof loads)[number];
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
          line.push(`${entry.target.name} ${Math.round(result.requests / result.seconds)}/s${perRequest}${gc}`);
        }
      }
      if (options.verbose) console.log(`  ${sizeLabel(size)} cycle ${cycle + 1}/${cycles}: ${line.join(', ')}`);
    }
  } finally {
    for (const { client } of loads) client.destroy();
  }
  return loads.map((entry) => {
    const sorted = entry.latencies.sort((a, b) => a - b);
    return {
      size,
      target: entry.target,
      rps: entry.seconds > 0 ? entry.requests / entry.seconds : 0,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      errors: entry.errors,
      slices: entry.slices,
      // The direct calls do not touch the proxies' process.
      cpuPerRequest: entry.target.name === 'direct' || entry.requests === 0 ? undefined : entry.cpu / entry.requests,
    };
  });
}

/** How noisy the run was: the ratio cycle by cycle (each target's slice against the bare forwarder's in the same cycle). */
function spread(slices: number[], bare: number[]): string {
  const ratios = slices
    .map((rps, i) => rps / (bare[i] ?? Number.NaN))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (ratios.length < 4) return '';
  const pct = (p: number) => `${(percentile(ratios, p) * 100).toFixed(0)}%`;
  return `; cycle by cycle: median ${pct(0.5)}, middle half ${pct(0.25)}–${pct(0.75)}`;
}

function printTable(rows: Row[]) {
  console.log(
    `\n${pad('body', 9)} ${pad('target', 38)} ${pad('req/s', 9, true)} ${pad('p50 ms', 8, true)} ${pad('p99 ms', 8, true)} ${pad('vs bare', 8, true)} ${pad('proxy CPU µs/req', 17, true)} ${pad('CPU vs bare', 12, true)}`,
  );
  for (const row of rows) {
    const bare = rows.find((r) => r.size === row.size && r.target.name === 'bare');
    const ratio = bare && bare.rps > 0 ? (row.rps / bare.rps).toFixed(2) : '-';
    const cpu = row.cpuPerRequest === undefined ? '-' : row.cpuPerRequest.toFixed(0);
    const cpuRatio =
      row.cpuPerRequest !== undefined && bare?.cpuPerRequest
        ? (row.cpuPerRequest / bare.cpuPerRequest).toFixed(2)
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
  const upstream = await startUpstream();
  const proxies = await start('./proxy/targets.js', [String(upstream.port)], ['--expose-gc']);
  proxyCpu(proxies.child);
  const standalone = proxyCpu(
    options.standaloneStore === null ? undefined : await startStandalone(upstream.port, options.standaloneStore),
  );
  const proxies2 = standalone ? await start('./proxy/targets.js', [String(upstream.port)], ['--expose-gc']) : undefined;
  proxyCpu(proxies2?.child);
  // The same server with metrics on (its own store): the metrics' cost in the default configuration.
  const withMetrics = proxyCpu(
    options.standaloneStore === null
      ? undefined
      : await startStandalone(upstream.port, options.standaloneStore, {
          SERVICE_METRICS_TOKEN: 'mt_bench_0123456789abcdef',
        }),
  );
  const stop = () => {
    upstream.server.close();
    upstream.server.closeAllConnections();
    proxies.child.kill();
    proxies2?.child.kill();
    standalone?.stop();
    withMetrics?.stop();
  };
  try {
    const ports: Ports = {
      upstream: upstream.port,
      bare: proxies.ready.barePort as number,
      portico: proxies.ready.porticoPort as number,
      logged: proxies.ready.loggedPort as number,
      standalone: standalone?.port,
      bare2: proxies2?.ready.barePort,
      metrics: withMetrics?.port,
    };
    const list = targets(ports);
    const rows: Row[] = [];
    const noGc = { minor: 0, major: 0, ms: 0 };
    const servers = { standalone, metrics: withMetrics };
    const cpu: CpuClock = async (target) =>
      target.process === 'standalone' || target.process === 'metrics'
        ? { micros: servers[target.process]?.cpuMicros() ?? Number.NaN, gc: noGc }
        : ask<Usage>((target.process === 'proxies-2' ? (proxies2 ?? proxies) : proxies).child, 'cpu', 'cpu');
    for (const size of options.sizes) rows.push(...(await measure(options, list, size, cpu)));
    printTable(rows);

    const verdicts: string[] = [];
    for (const size of options.sizes) {
      const bare = rows.find((r) => r.size === size && r.target.name === 'bare');
      const bare2 = rows.find((r) => r.size === size && r.target.name === 'bare-2');
      for (const row of rows.filter((r) => r.size === size && r.target.name.startsWith('portico'))) {
        const ratio = bare ? row.rps / bare.rps : 0;
        // Another process than the bare forwarder's: its placement counts too, so both bares are shown.
        const second =
          row.target.process === 'standalone' && bare2
            ? `; ${((row.rps / bare2.rps) * 100).toFixed(0)}% of the 2nd process's`
            : '';
        verdicts.push(
          `${ratio >= 0.95 ? 'PASS' : 'FAIL'}  ${row.target.label}, ${sizeLabel(size)}: ${(ratio * 100).toFixed(0)}% of the bare forwarder's req/s (target ≥ 95%)${second}${bare ? spread(row.slices, bare.slices) : ''}`,
        );
      }
    }
    if (options.large > 0) {
      const apiKey = list.find((t) => t.name === 'portico-silent-api-key') as Target;
      for (const [direction, transfer] of [
        ['upload', upload],
        ['download', download],
      ] as const) {
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
