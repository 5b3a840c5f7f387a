import { pathToFileURL } from 'node:url';
import t from 'tap';
import { childFlags, permissionFlag } from '../../lib/scripts/runtime/child-flags.js';
import { createWorkerPool } from '../../lib/scripts/runtime/pool.js';
import type { RunContext } from '../../lib/scripts/runtime/protocol.js';
import { listen } from '../helpers/http.js';
import { writeScript } from './fixtures.js';

const context: RunContext = {
  runId: 'r1',
  environment: 'dev',
  providerConfigKey: 'p',
  connectionId: 'c',
  provider: 'x',
  baseUrl: 'http://127.0.0.1:1',
  paginate: null,
};
const quiet = { onCall: async () => null, onLog: () => {} };

t.test('an action runs in a worker: input validated, output returned as JSON', async (t) => {
  const dir = t.testdir({});
  const file = pathToFileURL(
    writeScript(
      dir,
      'double.mjs',
      `export default createAction({
    input: z.object({ n: z.number() }), output: z.object({ doubled: z.number() }),
    exec: async (service, input) => { await service.log('doubling', { level: 'warn' }); return { doubled: input.n * 2 }; },
  });`,
    ),
  ).href;
  const pool = createWorkerPool({ readable: [`${dir}/`], size: 1, heapMb: 64 });
  t.teardown(() => pool.close());
  const logs: string[] = [];
  const ok = await pool.run(
    file,
    { type: 'action', context, input: { n: 21 }, outputLimitBytes: 1000 },
    { onCall: async () => null, onLog: (l, m) => logs.push(`${l}:${m}`) },
    10_000,
  );
  t.same(ok, { ok: true, value: { json: '{"doubled":42}', bytes: 14 } });
  t.same(logs, ['warn:doubling']);
  const bad = await pool.run(
    file,
    { type: 'action', context, input: { n: 'x' }, outputLimitBytes: 1000 },
    quiet,
    10_000,
  );
  t.match(bad, { ok: false, reason: 'script_error', error: { code: 'invalid_input', field: 'input.n' } });
  const manifest = await pool.run(file, { type: 'inspect' }, quiet, 10_000);
  t.match(manifest, {
    ok: true,
    value: { type: 'action', input: { type: 'object', properties: { n: { type: 'number' } } } },
  });
  t.equal(pool.stats().workers, 1, 'the warm worker was reused');
});

t.test('a spinning script is stopped at its time limit while the main thread keeps serving', async (t) => {
  const dir = t.testdir({});
  const file = pathToFileURL(
    writeScript(
      dir,
      'spin.mjs',
      `export default createAction({
    input: z.object({}), output: z.object({}),
    exec: async () => { for (;;) {} },
  });`,
    ),
  ).href;
  const pool = createWorkerPool({ readable: [`${dir}/`], size: 2, heapMb: 64 });
  t.teardown(() => pool.close());
  const server = await listen((_req, res) => res.end('pong'));
  t.teardown(() => server.close());
  let settled = false;
  const run = pool
    .run(file, { type: 'action', context, input: {}, outputLimitBytes: 1000 }, quiet, 4_000)
    .finally(() => {
      settled = true;
    });
  let answered = 0;
  for (let i = 0; i < 30; i++) {
    if ((await (await fetch(server.url)).text()) === 'pong') answered++;
  }
  t.equal(answered, 30);
  t.notOk(settled, 'all 30 requests were answered while the script was still spinning');
  t.match(await run, { ok: false, reason: 'timeout' });
  const next = await pool.run(file, { type: 'inspect' }, quiet, 10_000);
  t.match(next, { ok: true }, 'a fresh worker replaces the stopped one');
});

t.test('a script exhausting its heap is stopped and reported', async (t) => {
  const dir = t.testdir({});
  const file = pathToFileURL(
    writeScript(
      dir,
      'hog.mjs',
      `export default createAction({
    input: z.object({}), output: z.object({}),
    exec: async () => { const hoard = []; for (;;) hoard.push({ text: 'x'.repeat(64) + hoard.length }); },
  });`,
    ),
  ).href;
  const pool = createWorkerPool({ readable: [`${dir}/`], size: 1, heapMb: 32 });
  t.teardown(() => pool.close());
  t.match(await pool.run(file, { type: 'action', context, input: {}, outputLimitBytes: 1000 }, quiet, 60_000), {
    ok: false,
    reason: 'memory',
  });
});

t.test('a module that never finishes loading is stopped at the load limit', async (t) => {
  const dir = t.testdir({});
  const file = pathToFileURL(
    writeScript(
      dir,
      'stuck.mjs',
      `for (;;) {}\nexport default createAction({ input: z.object({}), output: z.object({}), exec: async () => ({}) });`,
    ),
  ).href;
  const pool = createWorkerPool({ readable: [`${dir}/`], size: 1, heapMb: 64, loadTimeoutMs: 3_000 });
  t.teardown(() => pool.close());
  t.match(await pool.run(file, { type: 'action', context, input: {}, outputLimitBytes: 1000 }, quiet, 1_000), {
    ok: false,
    reason: 'timeout',
    error: { code: 'timeout', message: /did not load within 3000 ms/ },
  });
});

t.test(
  'a crashing script ends its process and its run, with the reason; the next run gets a fresh process',
  async (t) => {
    const dir = t.testdir({});
    const exit = pathToFileURL(
      writeScript(
        dir,
        'exit.mjs',
        `export default createAction({ input: z.object({}), output: z.object({}), exec: async () => { process.exit(3); } });`,
      ),
    ).href;
    const stray = pathToFileURL(
      writeScript(
        dir,
        'stray.mjs',
        `export default createAction({ input: z.object({}), output: z.object({}),
    exec: async () => { setTimeout(() => { throw new Error('stray timer blew up'); }, 10); await new Promise(() => {}); } });`,
      ),
    ).href;
    const pool = createWorkerPool({ readable: [`${dir}/`], size: 1, heapMb: 64 });
    t.teardown(() => pool.close());
    const task = { type: 'action' as const, context, input: {}, outputLimitBytes: 1000 };
    t.match(await pool.run(exit, task, quiet, 10_000), {
      ok: false,
      reason: 'crashed',
      error: { message: /process stopped: exited with code 3/ },
    });
    t.match(await pool.run(stray, task, quiet, 10_000), {
      ok: false,
      reason: 'script_error',
      error: { code: 'script_crashed', message: 'stray timer blew up' },
    });
    t.match(
      await pool.run(exit, { type: 'inspect' }, quiet, 10_000),
      { ok: true },
      'a fresh process serves the next task',
    );
  },
);

t.test('a script cannot restart its own clock by claiming to have just started', async (t) => {
  const dir = t.testdir({});
  const file = pathToFileURL(
    writeScript(
      dir,
      'forge.mjs',
      `export default createAction({ input: z.object({}), output: z.object({}),
    exec: async () => { setInterval(() => process.send({ type: 'started' }), 50); await new Promise(() => {}); } });`,
    ),
  ).href;
  const pool = createWorkerPool({ readable: [`${dir}/`], size: 1, heapMb: 64, loadTimeoutMs: 120_000 });
  t.teardown(() => pool.close());
  t.match(await pool.run(file, { type: 'action', context, input: {}, outputLimitBytes: 1000 }, quiet, 1_500), {
    ok: false,
    reason: 'timeout',
    error: { message: /longer than 1500 ms/ },
  });
});

t.test('the permission flag follows the Node version', async (t) => {
  t.equal(permissionFlag('20.20.2'), '--experimental-permission');
  t.equal(permissionFlag('22.12.0'), '--experimental-permission');
  t.equal(permissionFlag('22.13.0'), '--permission');
  t.equal(permissionFlag('24.21.0'), '--permission');
  t.match(childFlags({ readable: ['/a/', '/b.mjs'], heapMb: 64 }, '24.0.0'), [
    '--permission',
    '--allow-fs-read=/a/',
    '--allow-fs-read=/b.mjs',
    '--no-addons',
    '--max-old-space-size=64',
  ]);
});
