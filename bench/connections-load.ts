/**
 * The client side of `bench/connections.ts`: imports through HTTP and the list calls that run
 * beside the proxied ones. It runs in a process of its own (`--client process`, the default),
 * as an importer would, so the gateway's thread does the gateway's work only; `--client inline`
 * runs it in the gateway's process (what the first figures measured).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { request, Agent } from 'node:http';

export const secretKey = 'sk_bench_0123456789abcdef';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      base + path,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${secretKey}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export async function expectOk(res: Promise<{ status: number; text: string }>, what: string) {
  const { status, text } = await res;
  if (status >= 300) throw new Error(`${what}: HTTP ${status} ${text.slice(0, 200)}`);
  return text;
}

export const connection = (i: number) => ({
  provider_config_key: 'crm',
  connection_id: `conn-${i}`,
  credentials: { type: 'API_KEY', apiKey: `sk_live_${i}_${'x'.repeat(24)}` },
  end_user: { id: `user-${i % 50_000}`, email: `person${i}@example.com`, display_name: `Person ${i}` },
  metadata: { plan: i % 3 ? 'pro' : 'free' },
});

/** What the client does; the same calls in process or in the child. */
export interface Load {
  /** Imports ids [from, to), `inFlight` at a time; `onSlice` every `slice` done (counted over every call). */
  importRange(
    from: number,
    to: number,
    inFlight: number,
    slice: number,
    onSlice: (done: number, rate: number) => void,
  ): Promise<void>;
  startLists(path: string, concurrency: number): Promise<void>;
  stopLists(): Promise<void>;
  close(): void;
}

function inlineLoad(base: string): Load {
  let done = 0;
  let sliceStart = performance.now();
  let pausedAt = performance.now();
  let listing: Promise<unknown>[] = [];
  let listOn = false;
  return {
    async importRange(from, to, inFlight, slice, onSlice) {
      // Time between calls (the measurements at each checkpoint) is not the import's.
      sliceStart += performance.now() - pausedAt;
      let next = from;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < to) {
            const i = next++;
            await expectOk(call(base, 'POST', '/connections', connection(i)), 'import');
            if (++done % slice === 0) {
              onSlice(done, slice / ((performance.now() - sliceStart) / 1000));
              sliceStart = performance.now();
            }
          }
        }),
      );
      pausedAt = performance.now();
    },
    async startLists(path, concurrency) {
      listOn = true;
      listing = Array.from({ length: concurrency }, async () => {
        while (listOn) await expectOk(call(base, 'GET', path), 'list');
      });
    },
    async stopLists() {
      listOn = false;
      await Promise.all(listing);
    },
    close: () => agent.destroy(),
  };
}

type Command =
  | { cmd: 'import'; from: number; to: number; inFlight: number; slice: number }
  | { cmd: 'lists'; path: string; concurrency: number }
  | { cmd: 'stop-lists' };
type Reply = { type: 'slice'; done: number; rate: number } | { type: 'done' } | { type: 'error'; message: string };

/** The load in a child process (this file, run with `--load-child <base>`), driven over IPC. */
function childLoad(base: string): Load {
  const child: ChildProcess = fork(new URL(import.meta.url), ['--load-child', base], { stdio: 'inherit' });
  let onSlice: ((done: number, rate: number) => void) | undefined;
  let waiting: { resolve(): void; reject(e: Error): void } | undefined;
  child.on('message', (reply: Reply) => {
    if (reply.type === 'slice') return onSlice?.(reply.done, reply.rate);
    const w = waiting;
    waiting = undefined;
    if (reply.type === 'done') w?.resolve();
    else w?.reject(new Error(reply.message));
  });
  child.on('exit', (code) => waiting?.reject(new Error(`the load process exited (${code})`)));
  const send = (command: Command) =>
    new Promise<void>((resolve, reject) => {
      waiting = { resolve, reject };
      child.send(command);
    });
  return {
    importRange(from, to, inFlight, slice, report) {
      onSlice = report;
      return send({ cmd: 'import', from, to, inFlight, slice });
    },
    startLists: (path, concurrency) => send({ cmd: 'lists', path, concurrency }),
    stopLists: () => send({ cmd: 'stop-lists' }),
    close: () => {
      child.kill();
      agent.destroy();
    },
  };
}

export function createLoad(mode: 'process' | 'inline', base: string): Load {
  return mode === 'inline' ? inlineLoad(base) : childLoad(base);
}

const at = process.argv.indexOf('--load-child');
if (at >= 0 && process.send) {
  const load = inlineLoad(process.argv[at + 1] as string);
  const reply = (r: Reply) => process.send?.(r);
  process.on('message', (command: Command) => {
    const run =
      command.cmd === 'import'
        ? load.importRange(command.from, command.to, command.inFlight, command.slice, (done, rate) =>
            reply({ type: 'slice', done, rate }),
          )
        : command.cmd === 'lists'
          ? load.startLists(command.path, command.concurrency)
          : load.stopLists();
    run.then(
      () => reply({ type: 'done' }),
      (error: unknown) => reply({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
