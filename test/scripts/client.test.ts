import t from 'tap';
import { createPorticoClient, PorticoError } from '../../lib/client/index.js';
import { devKey } from '../helpers/gateway.js';
import { writeScript } from './fixtures.js';
import { json, scriptSetup, waitFor } from './setup.js';

t.test('the SDK module: syncs, actions (sync and async with a poller), logs, scripts', async (t) => {
  const dir = t.testdir({});
  const s = await scriptSetup(t, {
    respond: (_req, res) => json(res, [{ id: '1', title: 'One' }]),
    scripts: {
      modules: [
        {
          file: writeScript(
            dir,
            'docs.mjs',
            `export default createSync({ frequency: 'every day', autoStart: false, models: { Doc: z.object({ id: z.string(), title: z.string() }) },
          exec: async (s) => { const { data } = await s.get({ endpoint: '/docs' }); await s.batchSave(data, 'Doc'); await s.log('saved', { level: 'warn' }); } });`,
          ),
          integrations: ['fake'],
        },
        {
          file: writeScript(
            dir,
            'sum.mjs',
            `export default createAction({ input: z.object({ a: z.number(), b: z.number() }), output: z.object({ sum: z.number() }),
          exec: async (s, input) => ({ sum: input.a + input.b }) });`,
          ),
          integrations: ['fake'],
        },
      ],
    },
  });
  const client = createPorticoClient({ baseUrl: s.gw.url, secretKey: devKey });
  const call = { providerConfigKey: 'fake', connectionId: 'c1', actionName: 'sum' };

  t.same(await client.triggerAction({ ...call, input: { a: 2, b: 3 } }), { sum: 5 });
  const bad = await client.triggerAction({ ...call, input: { a: 'two', b: 3 } }).catch((e: unknown) => e);
  t.ok(PorticoError.is(bad));
  t.match(bad, { code: 'invalid_action_input', status: 400, details: { field: 'input.a' } });

  const queued = await client.triggerActionAsync<{ a: number; b: number }, { sum: number }>({
    ...call,
    input: { a: 40, b: 2 },
  });
  t.match(queued, { id: /^[0-9a-f-]{36}$/, statusUrl: /\/action\// });
  t.same(await queued.result({ intervalMs: 20 }), { sum: 42 });
  const failing = await client.triggerActionAsync({ ...call, input: {} });
  t.match(await failing.result({ intervalMs: 20 }).catch((e: unknown) => e), {
    code: 'invalid_action_input',
    details: { action_id: failing.id },
  });

  t.match(await client.triggerSync({ providerConfigKey: 'fake', syncs: ['docs'], connectionId: 'c1', mode: 'full' }), {
    queued: [{ sync: 'docs', connection_id: 'c1' }],
  });
  const status = await waitFor(async () => {
    const [one] = await client.syncStatus({ providerConfigKey: 'fake', syncs: ['docs'], connectionId: 'c1' });
    return one?.latest_run?.status === 'success' ? one : undefined;
  }, 'the sync run');
  t.match(status.latest_run?.results, { Doc: { added: 1 } });
  t.match(await client.listRecords({ providerConfigKey: 'fake', connectionId: 'c1', model: 'Doc' }), {
    records: [{ id: '1', title: 'One' }],
  });
  t.same(await client.startSync({ providerConfigKey: 'fake', syncs: ['docs'] }), [
    { sync: 'docs', connection_id: 'c1' },
  ]);
  t.same(await client.pauseSync({ providerConfigKey: 'fake', syncs: ['docs'] }), [
    { sync: 'docs', connection_id: 'c1' },
  ]);
  t.match(await client.syncStatus({ providerConfigKey: 'fake' }), [{ sync: 'docs', paused: true }]);

  const logs = await client.getScriptLogs({ script: 'docs' });
  t.match(logs.data[0], { level: 'warn', message: 'saved', script: 'docs' });
  const pages: string[][] = [];
  for await (const page of client.scriptLogPages({ limit: 1 })) pages.push(page.map((l) => l.message));
  t.ok(pages.length >= 3 && pages.every((p) => p.length === 1), 'one log per page, every page visited');
  t.match(await client.listScripts('fake'), [
    { name: 'docs', type: 'sync' },
    { name: 'sum', type: 'action' },
  ]);
});
