import t from 'tap';
import { writeScript } from './fixtures.js';
import { json, scriptSetup, waitFor } from './setup.js';

const sync = (name: string, syncType: string) => `export default createSync({
  frequency: 'every day', autoStart: false, ${syncType ? `syncType: '${syncType}',` : ''}
  models: { Item: z.object({ id: z.string() }) },
  exec: async (service) => { await service.batchSave([{ id: '${name}' }], 'Item'); },
});`;

t.test('the trigger answer names the mode the runs have: full for a sync that is not incremental', async (t) => {
  const dir = t.testdir({});
  const s = await scriptSetup(t, {
    respond: (_req, res) => json(res, {}),
    scripts: {
      modules: [
        { file: writeScript(dir, 'whole.mjs', sync('whole', '')), integrations: ['fake'] },
        { file: writeScript(dir, 'changes.mjs', sync('changes', 'incremental')), integrations: ['fake'] },
      ],
    },
  });
  const trigger = (syncs: string[]) =>
    s.gw.call('POST', '/sync/trigger', { body: { provider_config_key: 'fake', connection_id: 'c1', syncs } });
  const statusOf = async (name: string) =>
    (await s.gw.call('GET', `/sync/status?provider_config_key=fake&syncs=${name}&connection_id=c1`)).json.data[0];

  const whole = await trigger(['whole']);
  t.equal(whole.status, 202);
  t.match(
    whole.json.data,
    { mode: 'full', queued: [{ sync: 'whole', connection_id: 'c1', mode: 'full' }] },
    'asked incremental (the default), got full',
  );
  const ran = await waitFor(async () => {
    const st = await statusOf('whole');
    return st?.latest_run?.status === 'success' && st;
  }, 'the run');
  t.equal(ran.latest_run.mode, 'full', 'and the run was full');

  const changes = await trigger(['changes']);
  t.match(changes.json.data, { mode: 'incremental', queued: [{ sync: 'changes', mode: 'incremental' }] });
  await waitFor(async () => (await statusOf('changes'))?.latest_run?.status === 'success', 'the incremental run');
  const both = await trigger(['whole', 'changes']);
  t.match(
    both.json.data,
    {
      mode: 'incremental',
      queued: [
        { sync: 'whole', mode: 'full' },
        { sync: 'changes', mode: 'incremental' },
      ],
    },
    'each queued run names its own mode',
  );
});

t.test('GET /sync/status without its integration is a clear 400', async (t) => {
  const s = await scriptSetup(t, { respond: (_req, res) => json(res, {}), scripts: {} });
  for (const path of ['/sync/status', '/sync/status?syncs=a', '/sync/status?provider_config_key=']) {
    const res = await s.gw.call('GET', path);
    t.equal(res.status, 400, path);
    t.equal(res.json.error.code, 'missing_provider_config_key');
    t.match(res.json.error.message, /Name the integration: GET \/sync\/status\?provider_config_key=<integration>/);
    t.notMatch(res.json.error.message, /expected string|received undefined/, "not the validator's words");
  }
  const twice = await s.gw.call('GET', '/sync/status?provider_config_key=a&provider_config_key=b');
  t.match(twice, {
    status: 400,
    json: { error: { code: 'invalid_request', message: 'provider_config_key: give it once.' } },
  });
});
