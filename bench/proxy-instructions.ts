/*
 * `npm run bench:instructions`: machine instructions per proxied call, counted by valgrind's
 * callgrind (bench/proxy/callgrind.ts), for the bare Koa + http-proxy forwarder and the
 * standalone server as users run it (request log on, to a file), with its log off, and with
 * metrics on — each its own process, against one upstream, 1 KiB answers. A count is the same
 * on a busy machine and a quiet one, so two builds can be compared where req/s cannot; it
 * leaves out the kernel's part of a call and cache misses (`npm run bench` measures time).
 *
 *   --calls <n>     calls per counted window (default 3000)
 *   --windows <n>   windows counted per row and mode; the median is reported, with the range
 *                   (default 3: a window that holds a major GC or a late compile stands out)
 *   --warmup <n>    calls before counting, per mode, so the code is optimized (default 8000)
 *   --modes <list>  api-key,oauth2,app (default: all three)
 *   --rows <list>   bare,standalone,logs-off,metrics (default: all)
 *
 * Needs valgrind (Debian: `apt-get install valgrind`). Each row takes a minute or two.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { callgrindAvailable, createCallgrind, type Callgrind } from './proxy/callgrind.js';
import { benchSecretKey } from './proxy/scenarios.js';
import { startBareProcess } from './proxy/bare-process.js';
import { startStandalone } from './proxy/standalone.js';
import { startUpstream } from './proxy/upstream.js';
import { benchArgs } from './args.js';

const args = benchArgs('bench:instructions', {
  calls: { type: 'string', default: '3000', help: 'proxied calls per counted window, four at a time' },
  windows: {
    type: 'string',
    default: '3',
    help: 'windows counted per row and auth mode; the median is printed, with the range',
  },
  warmup: {
    type: 'string',
    default: '8000',
    help: 'calls per auth mode before counting, so the code is optimized',
  },
  modes: {
    type: 'string',
    default: 'api-key,oauth2,app',
    choices: ['api-key', 'oauth2', 'app'],
    commaSeparated: true,
    help: 'auth modes the proxied calls use, a column each',
  },
  rows: {
    type: 'string',
    default: 'bare,standalone,logs-off,metrics',
    choices: ['bare', 'standalone', 'logs-off', 'metrics'],
    commaSeparated: true,
    help: 'processes measured, a row each (logs-off: the standalone server at log level warn)',
  },
});
const CALLS = Number(args.calls);
const WINDOWS = Math.max(1, Number(args.windows));
const WARMUP = Number(args.warmup);
const integrations: Record<string, string> = { 'api-key': 'key', oauth2: 'oauth', app: 'app' };
const modes = args.modes.split(',');
const rows = args.rows.split(',');

/** Instructions per call over the windows counted. */
interface Counted {
  median: number;
  min: number;
  max: number;
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** A process under measurement: where it listens and its pid (valgrind's, which is Node's). */
interface Measured {
  port: number;
  pid: number;
  stop(): void;
}

/** `calls` GET calls, four at a time on keep-alive connections, each read to its end. */
async function drive(port: number, path: string, headers: Record<string, string>, calls: number, agent: Agent) {
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent < calls) {
        sent++;
        await one();
      }
    }),
  );
}

/** Resolves once no process `pid` is left (Linux /proc), or after 30 s. */
async function gone(pid: number): Promise<void> {
  for (let waited = 0; waited < 30_000 && existsSync(`/proc/${pid}`); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startBare(upstreamPort: number, callgrind: Callgrind): Promise<Measured> {
  const bare = await startBareProcess(upstreamPort, { wrap: callgrind.wrap, env: callgrind.env, startMs: 120_000 });
  return { port: bare.port, pid: bare.pid, stop: bare.stop };
}

async function main() {
  if (!callgrindAvailable()) {
    console.error('bench:instructions needs valgrind (callgrind and callgrind_control): apt-get install valgrind');
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-instructions-'));
  const upstream = await startUpstream();
  console.log(
    `Instructions per proxied call (callgrind), 1 KiB answers, median of ${WINDOWS} windows of ${CALLS} calls [range], after ${WARMUP} per mode; Node ${process.version}; load ${loadavg()[0]?.toFixed(1)}.`,
  );
  const results = new Map<string, Map<string, Counted>>();
  const setups: { row: string; label: string; start: (callgrind: Callgrind) => Promise<Measured> }[] = [
    { row: 'bare', label: 'bare Koa + http-proxy', start: (c) => startBare(upstream.port, c) },
    {
      row: 'standalone',
      label: 'Portico standalone (request log → file)',
      start: (c) => standalone(c, {}),
    },
    {
      row: 'logs-off',
      label: 'Portico standalone, log level warn',
      start: (c) => standalone(c, { SERVICE_LOG_LEVEL: 'warn' }),
    },
    {
      row: 'metrics',
      label: 'Portico standalone + metrics',
      start: (c) => standalone(c, { SERVICE_METRICS_TOKEN: 'bench-metrics-token-0123456789' }),
    },
  ];
  async function standalone(callgrind: Callgrind, env: Record<string, string>): Promise<Measured> {
    const server = await startStandalone(upstream.port, undefined, env, { wrap: callgrind.wrap, startMs: 300_000 });
    return { port: server.port, pid: server.pid as number, stop: server.stop };
  }
  try {
    for (const setup of setups.filter((s) => rows.includes(s.row))) {
      const callgrind = createCallgrind(dir, setup.row);
      const measured = await setup.start(callgrind);
      const agent = new Agent({ keepAlive: true, maxSockets: 4 });
      const perMode = new Map<string, Counted>();
      try {
        for (const mode of modes) {
          const portico = setup.row !== 'bare';
          const path = portico ? '/proxy/bytes?size=1024' : '/bytes?size=1024';
          const headers: Record<string, string> = portico
            ? {
                authorization: `Bearer ${benchSecretKey}`,
                'provider-config-key': integrations[mode] as string,
                'connection-id': 'c',
              }
            : {};
          await drive(measured.port, path, headers, WARMUP, agent);
          const perCall: number[] = [];
          for (let window = 0; window < WINDOWS; window++) {
            const instructions = await callgrind.count(measured.pid, () =>
              drive(measured.port, path, headers, CALLS, agent),
            );
            perCall.push(instructions / CALLS);
          }
          perCall.sort((a, b) => a - b);
          const counted = {
            median: perCall[Math.floor(perCall.length / 2)] as number,
            min: perCall[0] as number,
            max: perCall[perCall.length - 1] as number,
          };
          perMode.set(mode, counted);
          // The bare forwarder has no modes: one count serves every column.
          if (!portico) {
            for (const other of modes) perMode.set(other, counted);
            break;
          }
        }
      } finally {
        agent.destroy();
        measured.stop();
        // valgrind writes its last dump and removes its control pipes as the process ends: wait for it.
        await gone(measured.pid);
      }
      results.set(setup.label, perMode);
      const bare = results.get('bare Koa + http-proxy');
      console.log(
        `${setup.label.padEnd(42)} ${modes
          .map((mode) => {
            const value = perMode.get(mode) as Counted;
            const ratio = bare ? ` (${(value.median / (bare.get(mode) as Counted).median).toFixed(3)} ×)` : '';
            const range = WINDOWS > 1 ? ` [${count(value.min)}–${count(value.max)}]` : '';
            return `${mode} ${count(value.median)}${ratio}${range}`;
          })
          .join('   ')}`,
      );
    }
  } finally {
    upstream.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `Load average at the end: ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}.`,
  );
}

await main();
