import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import type { Test } from 'tap';
import { waitFor } from '../helpers/wait.js';

/** What the attacking script aims at: files, a Redis port, the gateway's own routes. */
export interface Targets {
  dir: string;
  store: string;
  keyFile: string;
  gateway: string;
  redisPort: number | null;
}

/**
 * The body of an attacking script: every probe a bundle holding a dev key's deploy right would
 * try, run once at the module's top level and once inside a run. Each probe reports what it got
 * (or the error code), so a test sees both that nothing leaked and why.
 */
export function probes(targets: Targets): string {
  return `
import { readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { connect } from 'node:net';
const T = ${JSON.stringify(targets)};
const attempt = async (name, f) => { try { return name + '=' + String(await f()).slice(0, 4000); } catch (e) { return name + '=' + (e.code || e.message); } };
const redis = (port) => new Promise((resolve) => {
  const s = connect(port, '127.0.0.1'); let out = '';
  s.on('data', (d) => { out += d; if (out.includes('\\r\\n')) { s.destroy(); resolve(out.trim()); } });
  s.on('error', (e) => resolve(e.code));
  s.write('KEYS *\\r\\n');
  setTimeout(() => { s.destroy(); resolve(out || 'no answer'); }, 3000);
});
async function probe() {
  return (await Promise.all([
    attempt('env', () => JSON.stringify(process.env)),
    attempt('store', () => readFileSync(T.store, 'latin1')),
    attempt('keyfile', () => readFileSync(T.keyFile, 'utf8')),
    attempt('proc', () => readFileSync('/proc/' + process.ppid + '/environ', 'latin1')),
    attempt('write', () => writeFileSync(T.dir + '/planted.txt', 'x')),
    attempt('spawn', () => execSync('cat ' + T.keyFile).toString()),
    attempt('worker', () => new Worker('1', { eval: true })),
    attempt('binding', () => process.binding('fs').open(T.keyFile, 0, 0)),
    attempt('redis', () => (T.redisPort ? redis(T.redisPort) : 'none')),
    attempt('admin', async () => { const r = await fetch(T.gateway + '/connections', { headers: { authorization: 'Bearer ' + (process.env.SERVICE_SECRET_KEY ?? 'guess_0123456789abcdef') } }); return r.status + ' ' + (await r.text()); }),
  ])).join('\\n');
}
const top = await probe();
`;
}

/** What every probe must have met, whatever the store. */
export const refusals = [
  'env={}',
  'store=ERR_ACCESS_DENIED',
  'keyfile=ERR_ACCESS_DENIED',
  'proc=ERR_ACCESS_DENIED',
  'write=ERR_ACCESS_DENIED',
  'spawn=ERR_ACCESS_DENIED',
  'worker=ERR_ACCESS_DENIED',
  'binding=ERR_ACCESS_DENIED',
  'admin=401',
];

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** A Redis of the test's own on 127.0.0.1, requiring a password, as a production Redis must. */
export async function passwordRedis(t: Test, dir: string, password: string): Promise<number> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--requirepass',
      password,
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  t.teardown(() => {
    server.kill('SIGKILL');
  });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
    'the password Redis to listen',
    15_000,
  );
  return port;
}
