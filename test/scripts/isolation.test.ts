import t from 'tap';
import { devKey } from '../helpers/gateway.js';
import { writeScript } from './fixtures.js';
import { json, scriptSetup, waitFor } from './setup.js';

t.test('a runaway script is stopped and reported while proxy traffic keeps flowing', async (t) => {
  const dir = t.testdir({});
  const file = (name: string, body: string) => ({
    file: writeScript(dir, `${name}.mjs`, body),
    integrations: ['fake'],
  });
  const s = await scriptSetup(t, {
    respond: (req, res) => json(res, { pong: req.url }),
    scripts: {
      workers: 2,
      heapMb: 96,
      actionTimeoutMs: 8_000,
      syncTimeoutMs: 4_000,
      modules: [
        file(
          'spin',
          `export default createAction({ input: z.object({}), output: z.object({}), exec: async () => { for (;;) {} } });`,
        ),
        file(
          'echo',
          `export default createAction({ input: z.object({ v: z.string() }), output: z.object({ v: z.string() }), exec: async (s, input) => input });`,
        ),
        file(
          'stuck-sync',
          `export default createSync({ frequency: 'every hour', autoStart: false, models: { Item: z.object({ id: z.string() }) },
          exec: async () => { while (true) {} } });`,
        ),
      ],
    },
  });

  const spin = await s.action('spin', {}, { 'x-async': 'true' });
  t.equal(spin.status, 202);
  await waitFor(
    async () => (await s.gw.call('GET', `/action/${spin.json.id}`)).json.data.status === 'running',
    'the script to start spinning',
  );

  // 100 proxied calls, one after another, while the script spins on a worker thread.
  let answered = 0;
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${s.gw.url}/proxy/ping/${i}`, {
      headers: { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' },
    });
    if (res.status === 200 && ((await res.json()) as { pong: string }).pong === `/api/ping/${i}`) answered++;
  }
  t.equal(answered, 100, 'every proxied call was answered');
  t.equal(
    (await s.gw.call('GET', `/action/${spin.json.id}`)).json.data.status,
    'running',
    '…while the script was still spinning',
  );

  const stopped = await waitFor(async () => {
    const r = await s.gw.call('GET', `/action/${spin.json.id}`);
    return r.json.data.status === 'failed' ? r.json.data : undefined;
  }, 'the spinning script to be stopped');
  t.match(stopped.error, { code: 'script_timeout', message: /longer than 8000 ms/ });
  const logs = await s.gw.call('GET', `/logs?run_id=${spin.json.id}`);
  t.match(logs.json.data, [{ level: 'error', message: /script_timeout/ }], "the stop is in the run's logs");

  const sync = await s.syncOnce('stuck-sync');
  t.match(sync.latest_run, { status: 'failed', error: { code: 'script_timeout' } });

  t.same(
    (await s.action('echo', { v: 'still here' })).json,
    { v: 'still here' },
    'fresh workers replace the stopped ones',
  );
});

t.test('a script exhausting its heap is stopped and reported; the next run gets a fresh worker', async (t) => {
  const dir = t.testdir({});
  const file = (name: string, body: string) => ({
    file: writeScript(dir, `${name}.mjs`, body),
    integrations: ['fake'],
  });
  const s = await scriptSetup(t, {
    respond: (_req, res) => json(res, {}),
    scripts: {
      workers: 1,
      heapMb: 96,
      // Generous: scripts run at the lowest CPU priority, and a loaded test machine may starve them.
      actionTimeoutMs: 120_000,
      modules: [
        file(
          'hog',
          `export default createAction({ input: z.object({}), output: z.object({}),
          exec: async () => { const hoard = []; for (;;) hoard.push('x'.repeat(1 << 20) + hoard.length); } });`,
        ),
        file(
          'echo',
          `export default createAction({ input: z.object({ v: z.string() }), output: z.object({ v: z.string() }), exec: async (s, input) => input });`,
        ),
      ],
    },
  });
  const hog = await s.action('hog', {});
  t.equal(hog.status, 500);
  t.match(hog.json.error, { code: 'script_memory_exceeded', message: /96 MB heap/ });
  t.same((await s.action('echo', { v: 'after' })).json, { v: 'after' });
});
